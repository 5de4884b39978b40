/**
 * The `http` repository's change feed: a watch reads again whenever its feed
 * opens, the first time included, since what committed before (between the
 * watch being armed and the socket being open, or while it was down) sent no
 * frame.
 */
import assert from "node:assert/strict";
import { type ServiceError, STATUS_OF_KIND } from "../engine/errors.ts";
import { REQUEST_TIMEOUT_MS } from "../engine/operations/fetch_within.ts";
import { httpRepository } from "./http.ts";
import { withTimeoutsDue } from "./_test_timeouts.ts";

Deno.test("a watch counts everything as changed each time its feed opens, the first time included", async () => {
  const sockets: WebSocket[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (request) => {
    const path = new URL(request.url).pathname;
    // After a drop the watch asks whether the model is still there: it is (a 404 would end the watch).
    if (path === "/models/fx") return Response.json({ id: "fx", version: "1.0.0" });
    if (path !== "/models/fx/subscribe") return new Response(null, { status: 404 });
    const { socket, response } = Deno.upgradeWebSocket(request);
    sockets.push(socket);
    return response;
  });
  const repository = httpRepository({
    id: "hub",
    repoClass: "web",
    baseUrl: `http://127.0.0.1:${server.addr.port}`,
    credential: null,
    reconnectMs: 10,
  });
  const changes: string[][] = [];
  const changed = async (count: number) => {
    for (let waited = 0; changes.length < count; waited += 10) {
      if (waited > 5000) assert.fail(`${changes.length} of ${count} changes reported`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const stop = await repository.watch!("fx", (paths) => changes.push(paths));
  try {
    await changed(1);
    assert.deepEqual(changes, [["$"]], "the first open, before any frame");
    sockets[0].send(JSON.stringify({ kind: "mutation", mutatedPaths: ["$.v"], derivedUpdated: ["$.w"] }));
    await changed(2);
    assert.deepEqual(changes[1], ["$.v", "$.w"]);
    sockets[0].close();
    await changed(3);
    assert.deepEqual(changes[2], ["$"], "open again after a drop");
    assert.equal(sockets.length, 2);
  } finally {
    stop();
    repository.close?.();
    await server.shutdown();
  }
});

/** A WebSocket the test opens and closes by hand. */
class HandSocket {
  static made: HandSocket[] = [];
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  constructor(readonly url: string) {
    HandSocket.made.push(this);
  }
  close() {}
}

/** Runs what an answered request still has to do: only promise jobs, which run before the next timer. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Timers the test runs by hand, oldest first: the pending ones with their delays. */
function handTimers() {
  const pending = new Map<number, { run: () => void; ms: number }>();
  let made = 0;
  return {
    pending,
    scheduler: {
      setTimeout: (run: () => void, ms: number) => {
        pending.set(++made, { run, ms });
        return made;
      },
      clearTimeout: (handle: unknown) => void pending.delete(handle as number),
    },
    /** Runs the oldest pending timer of delay `ms` (any delay when undefined). */
    next(ms?: number) {
      const [handle, timer] = [...pending].find(([, t]) => ms === undefined || t.ms === ms) ??
        assert.fail(`no pending timer of ${ms} ms`);
      pending.delete(handle);
      timer.run();
    },
  };
}

Deno.test("a watch's feed back at once is no failure; one whose first reconnect fails too is reported", async () => {
  HandSocket.made = [];
  const timers = handTimers();
  const scheduler = timers.scheduler;
  const asked: string[] = [];
  const repository = httpRepository({
    id: "hub",
    repoClass: "web",
    baseUrl: "http://hub.test",
    credential: null,
    WebSocket: HandSocket,
    scheduler,
    // After a drop the watch asks whether the model is still there: it is.
    fetch: (request) => {
      asked.push(new URL(request.url).pathname);
      return Promise.resolve(Response.json({ id: "fx", version: "1.0.0" }));
    },
  });
  const problems: string[] = [];
  const stop = await repository.watch!("fx", () => {}, (problem) => problems.push(problem));
  const drop = async (socket: HandSocket, reason: string) => {
    const before = asked.length;
    socket.onclose!({ code: 1006, reason });
    assert.equal(asked.length, before + 1, "asked whether the model is still there");
    await settled();
  };
  try {
    HandSocket.made[0].onopen!({});
    // A blip: the socket drops and its reconnect opens.
    await drop(HandSocket.made[0], "blip");
    timers.next();
    HandSocket.made[1].onopen!({});
    assert.deepEqual(problems, [], "a feed back at once is not reported");

    // Down: the reconnect fails too, which is reported; the next one opens.
    await drop(HandSocket.made[1], "down");
    assert.deepEqual(problems, []);
    timers.next();
    await drop(HandSocket.made[2], "still down");
    assert.deepEqual(problems, [
      "feed interrupted: Repository 'hub': Live updates of 'fx' interrupted (1006 still down); reconnecting…",
    ]);
    timers.next();
    HandSocket.made[3].onopen!({});
    assert.equal(problems.length, 1);
  } finally {
    stop();
    await repository.close?.();
  }
});

Deno.test("a watch's reconnect that neither opens nor closes counts as failed once the open timeout is up", async () => {
  HandSocket.made = [];
  const timers = handTimers();
  const repository = httpRepository({
    id: "hub",
    repoClass: "web",
    baseUrl: "http://hub.test",
    credential: null,
    reconnectMs: 1_000,
    openTimeoutMs: 7_000,
    WebSocket: HandSocket,
    scheduler: timers.scheduler,
    // After a drop the watch asks whether the model is still there: it is.
    fetch: () => Promise.resolve(Response.json({ id: "fx", version: "1.0.0" })),
  });
  const problems: string[] = [];
  const changes: string[][] = [];
  const stop = await repository.watch!(
    "fx",
    (paths) => changes.push(paths),
    (problem) => problems.push(problem),
  );
  try {
    HandSocket.made[0].onopen!({});
    assert.deepEqual([...timers.pending.values()], [], "an open socket is not timed");
    HandSocket.made[0].onclose!({ code: 1006, reason: "down" });
    await settled();
    timers.next(1_000);
    // The reconnect hangs: no open, no close, until its time is up.
    assert.equal(HandSocket.made.length, 2);
    timers.next(7_000);
    await settled();
    assert.deepEqual(problems, [
      "feed interrupted: Repository 'hub': Live updates of 'fx' interrupted (1006 no answer within 7000 ms); reconnecting…",
    ]);
    // The given-up socket opening late is ignored; the next reconnect opens and the watch reads again.
    HandSocket.made[1].onopen!({});
    assert.equal(changes.length, 1);
    timers.next(2_000);
    HandSocket.made[2].onopen!({});
    assert.deepEqual(changes, [["$"], ["$"]]);
    assert.equal(problems.length, 1);
  } finally {
    stop();
    await repository.close?.();
  }
});

Deno.test("a link's call to a server silent past the request timeout is unavailable (503), as an mcp child", async () => {
  const repository = httpRepository({
    id: "hub",
    repoClass: "web",
    baseUrl: "http://127.0.0.1:9",
    credential: null,
    // Never answers; gives up when the request is aborted.
    fetch: (request) =>
      new Promise((_, reject) =>
        request.signal.addEventListener("abort", () => reject(request.signal.reason))
      ),
  });
  await withTimeoutsDue(
    REQUEST_TIMEOUT_MS,
    () =>
      assert.rejects(repository.read!("fx", "$.a", new AbortController().signal), (err: ServiceError) => {
        assert.equal(err.kind, "unavailable");
        assert.equal(STATUS_OF_KIND[err.kind], 503);
        assert.equal(err.message, "The server at http://127.0.0.1:9 did not answer within 60000 ms");
        return true;
      }),
  );
});
