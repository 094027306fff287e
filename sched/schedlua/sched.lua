-- BesluitBron's fair scheduler for one limited service, on state shared in
-- Redis. It is a line-by-line port of the policy in sched/queue.go and
-- sched/fair.go (the start-time fair queueing, the longest-waiting-first guard, the token
-- bucket kept as the instant it is empty): every replica runs the same
-- decisions on the same state, atomically, so the guarantees of one
-- process hold across all of them. The differential test in
-- diff_test.go, next to this file, drives this script and
-- sched.Scheduler with the same calls and requires the same grants.
--
-- The values this script shares with package sched are not written here:
-- the constant slots of PUBLIC and MAXPLAN below are replaced by sched's own
-- constants when package schedlua loads (schedlua.Script).
--
-- Times are integer microseconds since the Unix epoch (exact in a double
-- up to the year 2255). Refill times of charges are computed by the caller
-- exactly (rational arithmetic, rounded against the scheduler) and passed
-- in; this script only adds and compares them. A call's charge is its
-- cost, but no more than the platform's declared capacity K (sched's
-- Options.PlatformUnits): an oversized call (cost >= units) waits for a
-- full bucket and uses up the platform's whole quota, which empties the
-- bucket (to 0 when K = units; to units - K, the platform's 0, when the
-- bucket keeps the host's headroom below K), never a debt beyond it.
--
-- KEYS[1] the service's key prefix, KEYS[2] the replicas' sorted set
-- (member = replica id, score = lease expiry), KEYS[3] the prefix of the
-- replicas' grant channels.
-- ARGV: op, now (0 = the server's clock), replica id, units, per, forget,
-- lease, K (the weights' K / (K + used) and the most a call is charged),
-- then the op's arguments (see the ops at the end).
pcall(function() redis.replicate_commands() end)

local P, REP, CHAN = KEYS[1], KEYS[2], KEYS[3]
local op = ARGV[1]
local t = tonumber(ARGV[2])
if t == 0 then
	local tm = redis.call('TIME')
	t = tonumber(tm[1]) * 1000000 + tonumber(tm[2])
end
local me = ARGV[3]
local units, per, forget, lease = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local K = math.max(tonumber(ARGV[8]), units)
local PUBLIC = '{{PublicSession}}' -- sched.PublicSession
local MAXPLAN = tonumber('{{MaxPlan}}') -- sched.MaxPlan

-- I prints an integer exactly: tostring and redis.call's own conversion
-- keep only 14 significant digits, too few for microseconds.
local function I(x) return string.format('%d', x) end

local function hgetall(key)
	local raw, h = redis.call('HGETALL', key), {}
	for i = 1, #raw, 2 do h[raw[i]] = raw[i + 1] end
	return h
end

-- The fast path. A call that finds no session waiting, no fence and room
-- in the bucket is granted at once. This block makes exactly the
-- decisions and writes of the general path below in that case (the test
-- TestFastPathMatchesGeneralPath runs both on the same random calls and
-- compares every key and every reply), with a third of its commands and
-- none of its bookkeeping: on a service under its limit nearly every call
-- takes it, so this is the cost a replica adds per granted call.
if op == 'enq' then
	-- nw and fd mirror, in the bucket's own hash, whether any session
	-- waits and whether a fence stands, so that seeing neither costs no
	-- command; only this script writes them, with what they mirror.
	local sv = redis.call('HMGET', P .. 'st', 'now', 'vt', 'ep', 'g', 'empty', 'paused', 'units', 'per', 'nw', 'fd')
	local cost, up = tonumber(ARGV[11]), tonumber(ARGV[12])
	local empty, paused = tonumber(sv[5]), tonumber(sv[6])
	local ft = math.max(tonumber(sv[1] or t), t)
	local need
	if cost >= units then need = per else need = math.min(per, up) end
	if sv[1] and sv[9] == '0' and sv[10] == '0' and tonumber(sv[7]) == units and tonumber(sv[8]) == per
		and paused <= ft and empty + need <= ft then
		local sid, cid = ARGV[9], ARGV[10]
		local key = P .. 's:' .. sid
		local h = hgetall(key)
		local used, last, lf, sep = tonumber(h.u or 0), tonumber(h.ls or 0), tonumber(h.lf or 0), tonumber(h.ep or 0)
		if ft - last >= forget then used, lf, sep = 0, 0, 0 end
		local vt, epoch, grants = tonumber(sv[2]), tonumber(sv[3]), tonumber(sv[4]) + 1
		if sep ~= epoch then lf, sep = 0, epoch end
		local start = math.max(vt, lf)
		local w = 1
		if sid ~= PUBLIC then w = K / (K + used) end
		local finish = start + cost / w
		if empty < ft - per then empty = ft - per end
		empty = empty + up
		if sid ~= PUBLIC then used = used + cost end
		local out = { I(ft), '0', '1', table.concat({ cid, I(grants), I(ft), '0' }, '|') }
		local pend = redis.call('HGETALL', P .. 'g:' .. me)
		for i = 2, #pend, 2 do out[#out + 1] = pend[i] end
		if #pend > 0 then
			out[3] = I(#out - 3)
			redis.call('DEL', P .. 'g:' .. me)
		end
		redis.call('HSET', P .. 'st', 'now', I(ft), 'vt', '0', 'ep', I(epoch + 1),
			'g', I(grants), 'empty', I(empty), 'paused', I(paused), 'units', ARGV[4], 'per', ARGV[5], 'nw', '0', 'fd', '0')
		redis.call('HSET', key, 'u', string.format('%.17g', used), 'ls', I(ft), 'si', I(ft),
			's', string.format('%.17g', start), 'f', string.format('%.17g', finish), 'lf', string.format('%.17g', finish), 'ep', I(sep))
		redis.call('PEXPIRE', key, I(math.floor(forget / 1000) + 60000))
		out[#out + 1] = '0'
		out[#out + 1] = ''
		out[#out + 1] = '0'
		out[#out + 1] = '0'
		return out
	end
end

-- The bucket: it holds units * min(per, t - empty) / per at t.
local st = hgetall(P .. 'st')
local b = { units = units, per = per, empty = tonumber(st.empty or 0), paused = tonumber(st.paused or 0), fence = 0 }
local unknown = st.now == nil
if unknown then
	-- A bucket Redis does not know (a new cluster, or Redis lost its data
	-- while replicas sent calls) starts empty: its grants before the loss
	-- are unknown, and the platform may still count them.
	b.empty = t
elseif tonumber(st.units) ~= units or tonumber(st.per) ~= per then
	-- A new limit keeps the units in the bucket, up to the new capacity.
	local ou, op_ = tonumber(st.units), tonumber(st.per)
	local tok = ou * math.min(op_, t - b.empty) / op_
	tok = math.min(tok, units)
	b.empty = t - math.max(0, math.floor(tok * per / units) - 1)
end
local now = math.max(tonumber(st.now or 0), t)
t = now
local Q = { b = b, vt = tonumber(st.vt or 0), epoch = tonumber(st.ep or 0), grants = tonumber(st.g or 0),
	waiting = {}, queued = 0, next = 0, onGrant = nil }
local granted = {}

local function readyAt(bk, at, c)
	if at < bk.paused then at = bk.paused end
	if at < bk.fence then at = bk.fence end
	local need
	if c.cost >= bk.units then need = bk.per else need = math.min(bk.per, c.up) end
	local x = bk.empty + need
	if x > at then return x end
	return at
end
local function capAt(bk, at)
	if bk.empty < at - bk.per then bk.empty = at - bk.per end
end
local function take(bk, at, c)
	capAt(bk, at)
	bk.empty = bk.empty + c.up
end
local function refund(bk, at, down)
	capAt(bk, at)
	bk.empty = bk.empty - down
	capAt(bk, at)
end
local function tokens(bk, at)
	return bk.units * math.min(bk.per, at - bk.empty) / bk.per
end
-- lower makes the bucket hold at most u units at t (u >= 0).
local function lower(bk, at, down)
	capAt(bk, at)
	local e = at - down
	if e > bk.empty then bk.empty = e end
end
local function serve(bk, at, c)
	local x = readyAt(bk, at, c)
	take(bk, x, c)
	return x
end

-- Replicas whose lease has lapsed are dead: their waiting calls leave.
local alive = {}
local function isAlive(o)
	local v = alive[o]
	if v == nil then
		local sc = redis.call('ZSCORE', REP, o)
		v = (sc and tonumber(sc) >= t) or false
		alive[o] = v
	end
	return v
end

-- A call is "id|cost|up|down|arrived|owner".
local function parseCall(e)
	local id, cost, up, down, arr, owner = string.match(e, '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|(.*)$')
	return { id = id, cost = tonumber(cost), up = tonumber(up), down = tonumber(down), arr = tonumber(arr), owner = owner, e = e }
end

local sessions, dirty = {}, {}
local function loadSession(id)
	local s = sessions[id]
	if s then return s end
	local h = hgetall(P .. 's:' .. id)
	s = { id = id, pub = (id == PUBLIC), used = tonumber(h.u or 0), last = tonumber(h.ls or 0), since = tonumber(h.si or 0),
		start = tonumber(h.s or 0), finish = tonumber(h.f or 0), lf = tonumber(h.lf or 0), ep = tonumber(h.ep or 0), q = {} }
	for _, e in ipairs(redis.call('LRANGE', P .. 'q:' .. id, 0, -1)) do
		local c = parseCall(e)
		if isAlive(c.owner) then
			c.s = s
			s.q[#s.q + 1] = c
		else
			s.dropped = true
		end
	end
	sessions[id] = s
	return s
end

local function weight(s)
	if s.pub then return 1 end
	return K / (K + s.used)
end
local function retag(s)
	s.finish = s.start + s.q[1].cost / weight(s)
end
local function tagHead(s)
	if s.ep ~= Q.epoch then s.lf, s.ep = 0, Q.epoch end
	s.start = math.max(Q.vt, s.lf)
	retag(s)
end
local function removeWaiting(q, s)
	for i, x in ipairs(q.waiting) do
		if x == s then
			table.remove(q.waiting, i)
			return
		end
	end
end

-- Purging a replica's own calls: when it rejoins after a fallback, or its
-- lease lapsed, the calls it had queued are no longer waited for.
local purge, lapsed = false, 0
if op == 'hb' then
	if ARGV[9] == '1' then
		purge = true
	else
		local prev = redis.call('ZSCORE', REP, me)
		if not prev or tonumber(prev) < t then
			lapsed, purge = 1, true
		end
	end
end
alive[me] = not purge

for _, id in ipairs(redis.call('ZRANGE', P .. 'wo', 0, -1)) do
	local s = loadSession(id)
	if s.dropped then dirty[s] = true end
	if #s.q > 0 then
		if s.dropped then retag(s) end
		Q.waiting[#Q.waiting + 1] = s
		Q.queued = Q.queued + #s.q
	end
end

local function session(id)
	local s = loadSession(id)
	if #s.q == 0 and t - s.last >= forget then
		s.used, s.last, s.since, s.start, s.finish, s.lf, s.ep = 0, 0, 0, 0, 0, 0, 0
	end
	return s
end

-- meets reports whether, with first served first and then every other
-- waiting session's head in order of waiting time, each session gets its
-- call by its deadline (since + per).
local function meets(q, at, first)
	local p = { units = q.b.units, per = q.b.per, empty = q.b.empty, paused = q.b.paused, fence = q.b.fence }
	local function ok(s)
		local x = serve(p, at, s.q[1])
		at = x
		return x <= s.since + per
	end
	if not ok(first) then return false end
	for _, s in ipairs(q.waiting) do
		if s ~= first and not ok(s) then return false end
	end
	return true
end

local function pick(q, at)
	local w = q.waiting
	local best = w[1]
	for i = 2, #w do
		local s = w[i]
		if s.start < best.start or (s.start == best.start and s.finish < best.finish) then best = s end
	end
	if best == w[1] or meets(q, at, best) then return best, true end
	return w[1], false
end

local function idle(q)
	if q.queued == 0 then
		q.epoch = q.epoch + 1
		q.vt = 0
	end
end

local function grant(q, at, s, fair)
	local c = table.remove(s.q, 1)
	q.queued = q.queued - 1
	take(q.b, at, c)
	if fair then q.vt = math.max(q.vt, s.start) end
	s.lf = s.finish
	if not s.pub then s.used = s.used + c.cost end
	s.last = at
	removeWaiting(q, s)
	if #s.q > 0 then
		s.since = at
		s.start = math.max(q.vt, s.lf)
		retag(s)
		q.waiting[#q.waiting + 1] = s
	end
	idle(q)
	q.grants = q.grants + 1
	if q.onGrant then
		q.onGrant(c, at)
		return
	end
	dirty[s] = true
	granted[#granted + 1] = { c = c, at = at, queued = at - c.arr, seq = q.grants }
end

local function advance(q, at)
	q.next = 0
	while q.queued > 0 do
		local s, fair = pick(q, at)
		local ready = readyAt(q.b, at, s.q[1])
		if ready > at then
			q.next = ready
			break
		end
		grant(q, at, s, fair)
	end
end

-- The fence: after an outage, shared grants wait until every replica that
-- may have granted calls on its own share has handed in what is left of
-- that share, or one lease has passed.
local fence = hgetall(P .. 'fence')
local function openFence()
	local sum = 0
	local hands = hgetall(P .. 'fhand')
	for _, v in pairs(hands) do
		local lvl, at, cap, sper = string.match(v, '^([^|]*)|([^|]*)|([^|]*)|(.*)$')
		lvl, at, cap, sper = tonumber(lvl), tonumber(at), tonumber(cap), tonumber(sper)
		sum = sum + math.min(cap, lvl + math.max(0, t - at) * cap / sper)
	end
	lower(b, t, math.max(0, math.floor(sum * per / units) - 1))
	redis.call('DEL', P .. 'fence', P .. 'fpend', P .. 'fhand')
	fence = {}
end
if fence.dl then
	b.fence = tonumber(fence.dl)
	if not purge then
		-- A replica in the shared state never granted on its own share.
		redis.call('SREM', P .. 'fpend', me)
	end
	if redis.call('SCARD', P .. 'fpend') == 0 or t >= b.fence then
		openFence()
		b.fence = 0
	end
end

local reply = {}
local live = 0
local watched = {}

if op == 'enq' then
	-- ARGV[9..]: session, call id, cost, up, down (the refill times of its
	-- charge, min(cost, K), rounded up and down), front, watch
	local sid, cid, cost, up, down, front, watch = ARGV[9], ARGV[10], tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13]), ARGV[14] == '1', ARGV[15] == '1'
	advance(Q, t)
	local s = session(sid)
	local c = { id = cid, cost = cost, up = up, down = down, arr = t, owner = me, s = s }
	c.e = table.concat({ cid, ARGV[11], ARGV[12], ARGV[13], I(t), me }, '|')
	s.last = t
	if #s.q == 0 then
		s.q[1] = c
		s.since = t
		tagHead(s)
		Q.waiting[#Q.waiting + 1] = s
	elseif front then
		table.insert(s.q, 1, c)
		retag(s)
	else
		s.q[#s.q + 1] = c
	end
	dirty[s] = true
	Q.queued = Q.queued + 1
	if watch then watched[cid] = true end
	advance(Q, t)
elseif op == 'cancel' then
	-- ARGV[9..]: session, call id, refill time of the charge rounded down,
	-- cost (refunded if the call was granted)
	local sid, cid, down = ARGV[9], ARGV[10], tonumber(ARGV[11])
	local s = loadSession(sid)
	local idx = nil
	for i, c in ipairs(s.q) do
		if c.id == cid then idx = i end
	end
	if idx then
		table.remove(s.q, idx)
		Q.queued = Q.queued - 1
		if #s.q == 0 then
			removeWaiting(Q, s)
		elseif idx == 1 then
			retag(s)
		end
		dirty[s] = true
		idle(Q)
		reply.cancel = 'removed'
	else
		-- Granted, delivered or not: it was never used, so it is refunded.
		refund(b, t, down)
		if not s.pub then
			local cost = tonumber(ARGV[12])
			s.used = math.max(0, s.used - cost)
			dirty[s] = true
		end
		redis.call('HDEL', P .. 'g:' .. me, cid)
		reply.cancel = 'refunded'
	end
	advance(Q, t)
elseif op == 'adv' then
	for i = 9, #ARGV do watched[ARGV[i]] = true end
	advance(Q, t)
elseif op == 'pause' then
	local u = tonumber(ARGV[9])
	if u > b.paused then b.paused = u end
	advance(Q, t)
elseif op == 'observe' then
	-- ARGV[9..]: hi, refill time of lo rounded down
	if tokens(b, t) > tonumber(ARGV[9]) then lower(b, t, tonumber(ARGV[10])) end
	advance(Q, t)
elseif op == 'hb' then
	-- ARGV[9..]: rejoining (1/0), hand-in level, share capacity, share
	-- window, then the replicas this one last saw alive.
	if ARGV[9] == '1' then
		if not fence.dl then
			if unknown then
				-- Redis lost the bucket while this replica was away. Every
				-- grant since then was made on a replica's own share, and
				-- the hand-ins bound what those left: the fence sets the
				-- bucket from them.
				b.empty = 0
			end
			local pend = redis.call('ZRANGE', REP, 0, -1)
			for i = 13, #ARGV do pend[#pend + 1] = ARGV[i] end
			for _, r in ipairs(pend) do
				if r ~= me then redis.call('SADD', P .. 'fpend', r) end
			end
			redis.call('HSET', P .. 'fence', 'dl', I(t + lease))
			fence = { dl = I(t + lease) }
			b.fence = t + lease
		end
		redis.call('HSET', P .. 'fhand', me, table.concat({ ARGV[10], I(t), ARGV[11], ARGV[12] }, '|'))
		redis.call('SREM', P .. 'fpend', me)
		redis.call('DEL', P .. 'g:' .. me)
		if redis.call('SCARD', P .. 'fpend') == 0 then
			openFence()
			b.fence = 0
		end
	elseif lapsed == 1 then
		redis.call('DEL', P .. 'g:' .. me)
	end
	redis.call('ZADD', REP, I(t + lease), me)
	redis.call('ZREMRANGEBYSCORE', REP, '-inf', '(' .. I(t - 3 * lease))
	live = redis.call('ZCOUNT', REP, I(t), '+inf')
	reply.stats = redis.call('ZRANGEBYSCORE', REP, I(t), '+inf')
	advance(Q, t)
elseif op == 'stats' then
	reply.stats = { string.format('%.6f', tokens(b, t)), I(Q.queued), I(#Q.waiting), I(redis.call('ZCOUNT', REP, I(t), '+inf')), I(b.fence), I(b.paused) }
	advance(Q, t)
else
	return redis.error_reply('besluitbron scheduler: unknown op ' .. tostring(op))
end

-- Deliver grants: the caller's in the reply, other replicas' through
-- their pending-grants hash and a message on their channel.
local mine = {}
for _, g in ipairs(granted) do
	local rec = table.concat({ g.c.id, I(g.seq), I(g.at), I(g.queued) }, '|')
	if g.c.owner == me then
		mine[#mine + 1] = rec
	else
		redis.call('HSET', P .. 'g:' .. g.c.owner, g.c.id, rec)
		redis.call('PEXPIRE', P .. 'g:' .. g.c.owner, I(math.floor(3 * lease / 1000) + 1000))
		redis.call('PUBLISH', CHAN .. g.c.owner, P .. '\n' .. rec)
	end
end
if op ~= 'hb' or ARGV[9] ~= '1' then
	local pend = redis.call('HGETALL', P .. 'g:' .. me)
	for i = 2, #pend, 2 do mine[#mine + 1] = pend[i] end
	if #pend > 0 then redis.call('DEL', P .. 'g:' .. me) end
end

-- Write back.
redis.call('HSET', P .. 'st', 'now', I(t), 'vt', string.format('%.17g', Q.vt), 'ep', I(Q.epoch),
	'g', I(Q.grants), 'empty', I(b.empty), 'paused', I(b.paused), 'units', ARGV[4], 'per', ARGV[5],
	'nw', I(#Q.waiting), 'fd', fence.dl and '1' or '0')
for s in pairs(dirty) do
	local key, qkey = P .. 's:' .. s.id, P .. 'q:' .. s.id
	redis.call('HSET', key, 'u', string.format('%.17g', s.used), 'ls', I(s.last), 'si', I(s.since),
		's', string.format('%.17g', s.start), 'f', string.format('%.17g', s.finish), 'lf', string.format('%.17g', s.lf), 'ep', I(s.ep))
	redis.call('DEL', qkey)
	if #s.q > 0 then
		local batch = {}
		for _, c in ipairs(s.q) do
			batch[#batch + 1] = c.e
			if #batch == 500 then
				redis.call('RPUSH', qkey, unpack(batch))
				batch = {}
			end
		end
		if #batch > 0 then redis.call('RPUSH', qkey, unpack(batch)) end
		redis.call('PERSIST', key)
	else
		-- Usage is forgotten Forget after the last call (the policy checks
		-- the instant; the expiry only frees the memory).
		redis.call('PEXPIRE', key, I(math.floor(forget / 1000) + 60000))
	end
end
redis.call('DEL', P .. 'wo', P .. 'tags')
for i, s in ipairs(Q.waiting) do
	redis.call('ZADD', P .. 'wo', I(i), s.id)
	redis.call('ZADD', P .. 'tags', string.format('%.17g', s.start), s.id)
end

-- Plan ahead for the watched calls: positions and expected grants.
local proj = {}
if next(watched) ~= nil and Q.queued > 0 then
	local d = { b = { units = b.units, per = b.per, empty = b.empty, paused = b.paused, fence = b.fence }, vt = Q.vt,
		epoch = Q.epoch, grants = Q.grants, waiting = {}, queued = Q.queued, next = 0 }
	local want = 0
	for _, s in ipairs(Q.waiting) do
		local cp = {}
		for k, v in pairs(s) do cp[k] = v end
		cp.q = {}
		for i, c in ipairs(s.q) do
			cp.q[i] = c
			if watched[c.id] then want = want + 1 end
		end
		d.waiting[#d.waiting + 1] = cp
	end
	local pos = 0
	d.onGrant = function(c, at)
		pos = pos + 1
		if watched[c.id] then
			proj[#proj + 1] = c.id .. '|' .. I(pos) .. '|' .. I(at)
			want = want - 1
		end
	end
	local at = t
	while pos < MAXPLAN and want > 0 and d.queued > 0 do
		advance(d, at)
		at = d.next
	end
	if want > 0 and d.queued > 0 then
		local u = 0
		for _, s in ipairs(d.waiting) do
			for _, c in ipairs(s.q) do u = u + math.min(c.cost, K) end
		end
		local eta = at + math.ceil(u * per / units)
		for _, s in ipairs(d.waiting) do
			for _, c in ipairs(s.q) do
				if watched[c.id] then proj[#proj + 1] = c.id .. '|' .. I(pos + d.queued) .. '|' .. I(eta) end
			end
		end
	end
end

-- Reply: now, next, the caller's grants, projections, then extras.
local out = { I(t), I(Q.next), I(#mine) }
for _, r in ipairs(mine) do out[#out + 1] = r end
out[#out + 1] = I(#proj)
for _, r in ipairs(proj) do out[#out + 1] = r end
out[#out + 1] = reply.cancel or ''
out[#out + 1] = I(lapsed)
out[#out + 1] = I(live)
if reply.stats then
	for _, v in ipairs(reply.stats) do out[#out + 1] = v end
end
return out
