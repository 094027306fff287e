// The official TypeScript MCP client against a BesluitBron address whose
// session limit is tight: it pings until refused, records what the client
// saw (the error it threw, the 429 and its Retry-After as its fetch layer
// received them), waits Retry-After and pings again. It prints one JSON
// line; host/ratelimit_tsclient_test.go judges it.
//
// usage: node client.mjs <url>
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = process.argv[2];
if (!url) {
  console.error("usage: node client.mjs <url>");
  process.exit(2);
}

const refusals = [];
// The transport calls this for every request; it sees the raw responses.
const spy = async (input, init) => {
  const res = await fetch(input, init);
  if (res.status === 429) {
    refusals.push({ retryAfter: res.headers.get("retry-after"), body: await res.clone().text() });
  }
  return res;
};

const out = { connected: false, served: 0, refused: null, refusals, retried: null };
const client = new Client({ name: "besluitbron-ts-429", version: "1.0.0" });
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: spy }));
  out.connected = true;
  for (let i = 0; i < 100 && out.refused === null; i++) {
    try {
      await client.ping();
      out.served++;
    } catch (err) {
      out.refused = {
        name: err?.constructor?.name,
        isStreamableHTTPError: err instanceof StreamableHTTPError,
        code: err?.code,
        message: String(err?.message),
      };
    }
  }
  const last = refusals.at(-1);
  if (last) {
    const wait = Number(last.retryAfter);
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
    try {
      await client.ping();
      out.retried = { ok: true, afterSeconds: wait };
    } catch (err) {
      out.retried = { ok: false, afterSeconds: wait, message: String(err?.message) };
    }
  }
} catch (err) {
  out.error = String(err?.stack ?? err);
} finally {
  await client.close().catch(() => {});
}
console.log(JSON.stringify(out));
