import assert from "node:assert/strict";
import { ModelService } from "../engine/service/service.ts";
import { createMcpHttpMount } from "./http.ts";

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

function post(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: { ...HEADERS, ...headers },
    body: JSON.stringify(body),
  });
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};
const ping = (sessionId: string) =>
  post({ jsonrpc: "2.0", id: 2, method: "ping" }, {
    "mcp-session-id": sessionId,
    "mcp-protocol-version": "2025-11-25",
  });

Deno.test("origins compare normalized; an unlisted one is 403 before anything else", async () => {
  const service = await ModelService.open();
  const mount = createMcpHttpMount(service, { allowedOrigins: ["HTTP://Good.Example/"] });
  try {
    assert.equal((await mount.handle(post(initialize, { origin: "http://good.example" }))).status, 200);
    const refused = await mount.handle(post(initialize, { origin: "http://good.example:8080" }));
    assert.equal(refused.status, 403);
    assert.match((await refused.json()).error.message, /not allowed/);
  } finally {
    await mount.close?.();
    await service.close();
  }
});

Deno.test("sessions idle longer than the limit end at a request of another session", async () => {
  const service = await ModelService.open();
  let clock = 0;
  const mount = createMcpHttpMount(service, { allowedOrigins: [], idleSessionMs: 1000, now: () => clock });
  try {
    const idle = (await mount.handle(post(initialize))).headers.get("mcp-session-id")!;
    const active = (await mount.handle(post(initialize))).headers.get("mcp-session-id")!;
    clock = 800;
    assert.equal((await mount.handle(ping(active))).status, 200);
    clock = 1600;
    assert.equal((await mount.handle(ping(active))).status, 200, "used 800 ms ago: kept");
    const gone = await mount.handle(ping(idle));
    assert.equal(gone.status, 404, "unused for 1,600 ms: ended by the other session's request");
    await gone.body?.cancel();
  } finally {
    await mount.close?.();
    await service.close();
  }
});

Deno.test("sessions idle longer than the limit end when the next session opens", async () => {
  const service = await ModelService.open();
  let clock = 0;
  const mount = createMcpHttpMount(service, { allowedOrigins: [], idleSessionMs: 1000, now: () => clock });
  try {
    const first = (await mount.handle(post(initialize))).headers.get("mcp-session-id")!;
    clock = 900;
    assert.equal((await mount.handle(ping(first))).status, 200);
    clock = 1500;
    await (await mount.handle(post(initialize))).body?.cancel();
    assert.equal((await mount.handle(ping(first))).status, 200, "used 600 ms ago: kept");
    clock = 3000;
    const third = (await mount.handle(post(initialize))).headers.get("mcp-session-id")!;
    const gone = await mount.handle(ping(first));
    assert.equal(gone.status, 404);
    await gone.body?.cancel();
    assert.equal((await mount.handle(ping(third))).status, 200);
  } finally {
    await mount.close?.();
    await service.close();
  }
});
