// The reference for `make bench`: the official TypeScript MCP SDK serving
// one empty tool over streamable HTTP, stateful (a session per client, as
// BesluitBron's addresses are), on node's own http server. The benchmark
// drives it with the same go-sdk client as BesluitBron
// (host/tsbench_test.go).
//
// With a file argument it also serves "same": a tool answering that file's
// JSON (a CallToolResult) as it is, so that a benchmark can compare a
// server that answers the same bytes as BesluitBron, without its work.
//
// usage: node server.mjs [result.json]   (prints "listening <port>" once it serves)
import http from "node:http";
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

const transports = new Map();
const same = process.argv[2] ? JSON.parse(readFileSync(process.argv[2], "utf8")) : null;

function newServer() {
  const server = new McpServer({ name: "ts-empty", version: "1.0.0" });
  server.registerTool("empty", { description: "Does nothing." }, async () => ({ content: [{ type: "text", text: "ok" }] }));
  if (same) server.registerTool("same", { description: "Answers a fixed result." }, async () => same);
  return server;
}

async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const s = Buffer.concat(chunks).toString("utf8");
  return s ? JSON.parse(s) : undefined;
}

const httpServer = http.createServer(async (req, res) => {
  try {
    const sid = req.headers["mcp-session-id"];
    const body = req.method === "POST" ? await readBody(req) : undefined;
    let transport = sid ? transports.get(sid) : undefined;
    if (!transport && req.method === "POST" && isInitializeRequest(body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => transports.set(id, transport),
      });
      transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
      await newServer().connect(transport);
    }
    if (!transport) {
      res.writeHead(400).end("no session");
      return;
    }
    await transport.handleRequest(req, res, body);
  } catch (e) {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(e));
  }
});
httpServer.listen(0, "127.0.0.1", () => console.log(`listening ${httpServer.address().port}`));
