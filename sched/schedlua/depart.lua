-- The departure bucket of one quota, shared by every replica (package
-- schedlua's DepartScript; host/internal/upstream/cluster runs it).
--
-- The scheduler script (sched.lua) decides who goes next and charges its
-- bucket at the grant. A granted request still has to reach the socket,
-- and time spent there (a runtime, a busy core, a grant handed to another
-- replica) would compress arrivals at the platform. This script counts a
-- request when it is about to be written: it reserves the instant the
-- request may leave, in a token bucket kept, like sched's, as the instant
-- it is empty, at the platform's rate and at its declared capacity less
-- the widest headroom any live replica asks for (each measures its own
-- path). The replica waits until that instant, and does not send the
-- request if its call ended meanwhile (the reservation is then spent, a
-- conservative error). A pause the scheduler set after a 429 holds here
-- too, and the scheduler's bucket is kept from holding more than this one.
--
-- KEYS[1]: the quota's key prefix (the scheduler's).
-- ARGV: now (µs; 0 = the server's clock), replica id, capacity K, per (µs
-- in which K units refill), this replica's headroom (units), the
-- request's charge (µs of refill, min(cost, K)), how long a replica's
-- headroom counts without a renewal (µs).
-- Reply: { at (µs: when the request may leave), now (µs), headroom used }.
--
-- The headroom's cap is not written here: the constant slot below is
-- replaced by sched.HeadroomCap when package schedlua loads
-- (schedlua.DepartScript), so that the shared bucket caps a replica's
-- headroom where that replica's own buckets do.
local HEADROOMCAP = tonumber('{{HeadroomCap}}') -- sched.HeadroomCap
local P = KEYS[1]
local t = tonumber(ARGV[1])
if t == 0 then
	local tm = redis.call('TIME')
	t = tonumber(tm[1]) * 1000000 + tonumber(tm[2])
end
local replica, K, per, h = ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local charge, ttl = tonumber(ARGV[6]), tonumber(ARGV[7])
redis.call('HSET', P .. 'hr', replica, ARGV[5] .. '|' .. string.format('%d', t + ttl))
local hr = redis.call('HGETALL', P .. 'hr')
for i = 1, #hr, 2 do
	local v, exp = string.match(hr[i + 1], '^([^|]*)|(.*)$')
	v, exp = tonumber(v), tonumber(exp)
	if not v or not exp or exp < t then
		redis.call('HDEL', P .. 'hr', hr[i])
	elseif v > h then
		h = v
	end
end
h = math.min(h, K * HEADROOMCAP)
-- The capacity kept, K - h units, as refill time.
local cap = math.floor(per * (K - h) / K)
local empty = tonumber(redis.call('GET', P .. 'dep') or '0')
local paused = tonumber(redis.call('HGET', P .. 'st', 'paused') or '0') or 0
local at = math.max(t, paused, empty + math.min(charge, cap))
empty = math.max(empty, at - cap) + charge
-- The scheduler's bucket (sched.lua's, at the same rate) holds no more
-- than this one: a scheduler that ran ahead of the departures would build
-- a queue here, and a newcomer it grants next would wait behind it.
local se = redis.call('HGET', P .. 'st', 'empty')
if se and redis.call('HEXISTS', P .. 'st', 'now') == 1 and tonumber(se) < empty then
	redis.call('HSET', P .. 'st', 'empty', string.format('%d', empty))
end
-- A bucket idle for a window is full whatever it held: the key may go.
redis.call('SET', P .. 'dep', string.format('%d', empty), 'PX', math.floor((empty - t + per) / 1000) + 1)
return { string.format('%d', at), string.format('%d', t), tostring(h) }
