import assert from "node:assert/strict";
import { ServiceError } from "../engine/errors.ts";
import type { Invoker } from "../engine/operations/invoker.ts";
import { websocketCommitEvents } from "./events.ts";

/** A WebSocket stand-in the test opens and drops by hand (the feed takes the global constructor). */
class FakeSocket {
  static made: FakeSocket[] = [];
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  constructor() {
    FakeSocket.made.push(this);
  }
  close(): void {}
}

/** Lets the feed's question to the REST API settle. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * Runs `body` with a watch of model 'm' whose first socket is open, over {@link FakeSocket}s (the global
 * WebSocket replaced meanwhile); every question to the REST API is rejected with `refusal`; `logged` holds
 * what the watch logs.
 */
async function withWatch(
  refusal: unknown,
  onEnd: (() => void) | undefined,
  body: (watch: { stop: () => void; logged: string[] }) => Promise<void>,
): Promise<void> {
  const realWebSocket = globalThis.WebSocket;
  globalThis.WebSocket = FakeSocket as unknown as typeof WebSocket;
  FakeSocket.made = [];
  try {
    const invoker = { invoke: () => Promise.reject(refusal) } as unknown as Invoker;
    const logged: string[] = [];
    const watching = websocketCommitEvents(invoker, "http://h").watch(
      "m",
      () => {},
      onEnd,
      (level, message) => logged.push(`${level}: ${message}`),
    );
    FakeSocket.made[0].onopen!({});
    await body({ stop: await watching, logged });
  } finally {
    globalThis.WebSocket = realWebSocket;
  }
}

Deno.test("a remote watch whose model is stored but not loaded on the server says so, once per outage, and goes on", async () => {
  let ended = false;
  await withWatch(
    new ServiceError("conflict", "Model 'm' is stored but not loaded: …"),
    () => ended = true,
    async ({ stop, logged }) => {
      FakeSocket.made[0].onclose!({ code: 4409, reason: "model not loaded" });
      // Each reconnect (after the feed's own delay) is refused as the handshake of an unloaded model is: 1006.
      for (let reconnect = 1; reconnect <= 2; reconnect++) {
        while (FakeSocket.made.length === reconnect) await new Promise((resolve) => setTimeout(resolve, 50));
        FakeSocket.made[reconnect].onclose!({ code: 1006, reason: "" });
        await settled();
      }
      stop();
      assert.deepEqual(logged, [
        "warning: Live updates of 'm' interrupted (4409 model not loaded); reconnecting…",
        "warning: Live updates of 'm' wait for it to load: Model 'm' is stored but not loaded: …",
      ]);
      assert.equal(ended, false, "the watch goes on: a repair brings the model back");
    },
  );
});

Deno.test("a server restart is said once: its 1001 and the 1006 of reconnects while it is down are one outage", async () => {
  // The REST API does not answer either while the server is down: nothing refused for good.
  await withWatch(new TypeError("connection refused"), undefined, async ({ stop, logged }) => {
    /** Drops socket `index`, then waits for the feed's reconnect (after its own delay). */
    const drop = async (index: number, code: number, reason = "") => {
      FakeSocket.made[index].onclose!({ code, reason });
      await settled();
      while (FakeSocket.made.length === index + 1) await new Promise((resolve) => setTimeout(resolve, 50));
    };
    await drop(0, 1001, "server shutting down");
    await drop(1, 1006);
    FakeSocket.made[2].onopen!({});
    // A later outage is said again.
    await drop(2, 1006);
    stop();
    assert.deepEqual(logged, [
      "warning: Live updates of 'm' interrupted (1001 server shutting down); reconnecting…",
      "info: Live updates of 'm' resumed",
      "warning: Live updates of 'm' interrupted (1006); reconnecting…",
    ]);
  });
});

Deno.test("a remote watch refused with a huge message logs it cut down (a hostile upstream cannot flood the log)", async () => {
  const ended = Promise.withResolvers<void>();
  await withWatch(
    new ServiceError("forbidden", `Key refused: ${"x".repeat(100_000)}`),
    () => ended.resolve(),
    async ({ logged }) => {
      FakeSocket.made[0].onclose!({ code: 1006, reason: "" });
      // The refusal is final: the watch ends with a warning quoting it.
      await ended.promise;
      assert.equal(logged.length, 2);
      assert.equal(
        logged[1],
        `warning: Live updates of 'm' stopped: Key refused: ${"x".repeat(200)}… (100000 characters)`,
      );
    },
  );
});
