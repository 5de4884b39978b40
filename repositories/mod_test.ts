/**
 * The configured repositories: an entry's `lookupTimeoutMs` and
 * `openTimeoutMs` reach the repository opened for it.
 */
import assert from "node:assert/strict";
import type { ServiceError } from "../engine/errors.ts";
import { until } from "../tests/effects/helpers.ts";
import { openRepositories } from "./mod.ts";

Deno.test("a configured lookupTimeoutMs: a server that takes the connection and never answers did not answer", async () => {
  // Takes connections and never writes a byte.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const connections: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const connection of listener) connections.push(connection);
  })();
  const [hub] = await openRepositories(
    JSON.stringify([{
      id: "hub",
      transport: "http",
      locator: `http://127.0.0.1:${listener.addr.port}`,
      lookupTimeoutMs: 50,
    }]),
    () => {},
  );
  try {
    await assert.rejects(hub.fetch("fx"), (err: ServiceError) => {
      assert.notEqual(err.kind, "bad_gateway", "a miss the resolution goes on from");
      assert.match(err.message, /^Repository 'hub' did not answer: /);
      return true;
    });
  } finally {
    await hub.close?.();
    listener.close();
    for (const connection of connections) connection.close();
    await accepting;
  }
});

Deno.test("a configured openTimeoutMs: a watch's feed socket that never opens counts as dropped after it", async () => {
  // The server answers REST (the model is there) but holds each feed's upgrade unanswered until the end.
  const held: (() => void)[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    if (new URL(request.url).pathname === "/models/fx") return Response.json({ id: "fx", version: "1.0.0" });
    return new Promise((resolve) => held.push(() => resolve(new Response(null, { status: 404 }))));
  });
  const [hub] = await openRepositories(
    JSON.stringify([{
      id: "hub",
      transport: "http",
      locator: `http://127.0.0.1:${server.addr.port}`,
      openTimeoutMs: 30,
    }]),
    () => {},
  );
  const problems: string[] = [];
  const stop = await hub.watch!("fx", () => {}, (problem) => problems.push(problem));
  try {
    // The first reconnect hangs too: reported, with the configured bound as the reason.
    await until(() => Promise.resolve(problems.length), (n) => n > 0, "the interruption reported");
    assert.equal(
      problems[0],
      "feed interrupted: Repository 'hub': Live updates of 'fx' interrupted (1006 no answer within 30 ms); reconnecting…",
    );
  } finally {
    stop();
    await hub.close?.();
    for (const answer of held) answer();
    await server.shutdown();
  }
});
