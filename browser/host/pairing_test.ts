import assert from "node:assert/strict";
import { silentServer } from "../../tests/silent_server.ts";
import { decidePairing, endPairing } from "./pairing.ts";

Deno.test("a server that never answers: approving, denying and ending the session say so within the timeout", async () => {
  await using silent = silentServer();
  const said = `The server at ${silent.url} did not answer within 200 ms. Try again.`;
  for (const decision of ["approve", "deny"] as const) {
    // The 200 ms bound ended the wait: the message names it.
    assert.deepEqual(await decidePairing(silent.url, decision, "WDJB-MJHT", undefined, 200), {
      kind: "refused",
      message: said,
    }, decision);
  }
  assert.equal(await endPairing(silent.url, "svcs_token", 200), said);
});

Deno.test("an unreachable server and a server's answers: each reported as before", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closed = `http://127.0.0.1:${listener.addr.port}`;
  listener.close(); // nobody listens there
  const down = await decidePairing(closed, "approve", "WDJB-MJHT");
  assert.equal(down.kind, "refused");
  assert.match((down as { message: string }).message, new RegExp(`^Cannot reach the server at ${closed}: `));
  assert.match(String(await endPairing(closed, "svcs_token")), /^Cannot reach the server at /);

  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/pair/approve") return Response.json({ sessionToken: "svcs_t", namespaceId: "pair-n" });
    if (path === "/pair/deny") return Response.json({ detail: "no pairing" }, { status: 404 });
    return new Response(null, { status: request.headers.get("authorization") === "Bearer gone" ? 401 : 500 });
  });
  const base = `http://127.0.0.1:${server.addr.port}/`;
  assert.deepEqual(await decidePairing(base, "approve", "WDJB-MJHT"), {
    kind: "approved",
    session: { sessionToken: "svcs_t", namespaceId: "pair-n" },
  });
  assert.match((await decidePairing(base, "deny", "WDJB-MJHT") as { message: string }).message, /No pairing/);
  assert.equal(await endPairing(base, "gone"), null, "already ended");
  assert.equal(await endPairing(base, "other"), "The server answered 500.");
});
