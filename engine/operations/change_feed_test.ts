import assert from "node:assert/strict";
import { ServiceError } from "../errors.ts";
import type { Scheduler } from "../ports.ts";
import {
  changeFeed,
  type ChangeFeedEvent,
  type ChangeFeedOptions,
  type ChangeFeedSocket,
  type ChangeFeedSocketConstructor,
  CREDENTIAL_ENDED_CLOSE,
  eventOfFrame,
  subscribeUrl,
} from "./change_feed.ts";
import type { Invoker } from "./invoker.ts";

/** A socket the test opens, feeds and drops by hand; `closedWith` is the code the feed closed it with. */
class FakeSocket implements ChangeFeedSocket {
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  closedWith: number | undefined;

  constructor(readonly url: string, sockets: FakeSocket[]) {
    sockets.push(this);
  }

  close(code?: number): void {
    this.closedWith = code;
  }

  /** The server drops the connection. */
  drop(code = 1006, reason = ""): void {
    this.onclose!({ code, reason });
  }
}

/** Timers that fire only when the test says, remembering each delay asked for. */
class RecordingScheduler implements Scheduler {
  readonly delays: number[] = [];
  #waiting = new Map<number, () => void>();

  setTimeout(callback: () => void, ms: number): unknown {
    this.delays.push(ms);
    this.#waiting.set(this.delays.length, callback);
    return this.delays.length;
  }

  clearTimeout(handle: unknown): void {
    this.#waiting.delete(handle as number);
  }

  get pending(): number {
    return this.#waiting.size;
  }

  /** Fires every waiting timer. */
  fire(): void {
    const due = [...this.#waiting.values()];
    this.#waiting.clear();
    for (const callback of due) callback();
  }
}

/** A feed over fake sockets and recorded timers, subscribed to model `m`. */
function follow(options: Partial<ChangeFeedOptions> = {}) {
  const sockets: FakeSocket[] = [];
  const scheduler = new RecordingScheduler();
  const events: ChangeFeedEvent[] = [];
  const WebSocket: ChangeFeedSocketConstructor = class extends FakeSocket {
    constructor(url: string) {
      super(url, sockets);
    }
  };
  const stop = changeFeed({ baseUrl: "http://h", WebSocket, scheduler, ...options })
    .subscribe("m", (event) => events.push(event));
  return { sockets, scheduler, events, stop, last: () => sockets[sockets.length - 1] };
}

/** What each open reports. */
const WHOLE_MODEL: ChangeFeedEvent = {
  kind: "mutation",
  modelId: "m",
  mutatedPaths: ["$"],
  derivedUpdated: [],
  metaUpdated: [],
  dispatchedEffects: [],
};

Deno.test("the subscribe URL: ws(s) scheme, the id as one encoded segment, the key as token", () => {
  assert.equal(
    subscribeUrl("http://h:8080/", "shop/cart", "k y"),
    "ws://h:8080/models/shop%2Fcart/subscribe?token=k+y",
  );
  assert.equal(subscribeUrl("https://h/base", "m"), "wss://h/base/models/m/subscribe");
  assert.equal(subscribeUrl("http://h", "m", ""), "ws://h/models/m/subscribe", "an empty key is no token");
});

Deno.test("frames become change events; a frame without kind is a mutation", () => {
  assert.deepEqual(eventOfFrame('{"modelId":"m","mutatedPaths":["$.a"],"derivedUpdated":["$.b"]}'), {
    kind: "mutation",
    modelId: "m",
    mutatedPaths: ["$.a"],
    derivedUpdated: ["$.b"],
    metaUpdated: [],
    dispatchedEffects: [],
  });
  // The meta keys a commit changed pass on, as the in-process subscription's result names them.
  const meta = eventOfFrame('{"modelId":"m","mutatedPaths":["$.a"],"metaUpdated":["$.b#maximum"]}');
  assert.deepEqual(meta?.kind === "mutation" && meta.metaUpdated, ["$.b#maximum"]);
  const caller = { effectId: "toast", emit: "saved", payload: { n: 1 } };
  const framed = eventOfFrame(
    JSON.stringify({ kind: "mutation", modelId: "m", dispatchedEffects: [caller, 7] }),
  );
  assert.deepEqual(
    framed?.kind === "mutation" && framed.dispatchedEffects,
    [caller],
    "caller effects, malformed dropped",
  );
  assert.deepEqual(eventOfFrame('{"kind":"spec-evolved","modelId":"m","version":"1.1.0"}'), {
    kind: "spec-evolved",
    modelId: "m",
    version: "1.1.0",
  });
});

Deno.test("malformed frames: not JSON, not an object, an unknown kind are no event; bad lists are empty", () => {
  for (const text of ["not json", "", "null", "7", '"mutation"', "[]", '{"kind":"other"}', '{"kind":1}']) {
    assert.equal(eventOfFrame(text), null, text);
  }
  assert.deepEqual(eventOfFrame('{"kind":"spec-evolved","modelId":"m"}'), {
    kind: "spec-evolved",
    modelId: "m",
    version: "",
  }, "a missing version is empty, not 'undefined'");
  assert.deepEqual(eventOfFrame('{"mutatedPaths":"$.a","derivedUpdated":null,"dispatchedEffects":{}}'), {
    kind: "mutation",
    modelId: "",
    mutatedPaths: [],
    derivedUpdated: [],
    metaUpdated: [],
    dispatchedEffects: [],
  });
  assert.deepEqual(
    eventOfFrame('{"modelId":"m","mutatedPaths":["$.a",3]}'),
    {
      kind: "mutation",
      modelId: "m",
      mutatedPaths: ["$.a", "3"],
      derivedUpdated: [],
      metaUpdated: [],
      dispatchedEffects: [],
    },
    "list members as strings",
  );
});

Deno.test("each open reports a change of the whole model, the first and every reopen", () => {
  const feed = follow({ apiKey: "k" });
  assert.equal(feed.sockets[0].url, "ws://h/models/m/subscribe?token=k");
  assert.deepEqual(feed.events, [], "nothing before the socket is open");
  feed.sockets[0].onopen!({});
  feed.sockets[0].onmessage!({ data: '{"modelId":"m","mutatedPaths":["$.a"],"derivedUpdated":[]}' });
  feed.sockets[0].onmessage!({ data: "not json" });
  feed.sockets[0].drop();
  feed.scheduler.fire();
  feed.sockets[1].onopen!({});
  assert.deepEqual(feed.events, [
    WHOLE_MODEL,
    {
      kind: "mutation",
      modelId: "m",
      mutatedPaths: ["$.a"],
      derivedUpdated: [],
      metaUpdated: [],
      dispatchedEffects: [],
    },
    WHOLE_MODEL,
  ]);
  feed.stop();
});

Deno.test("reconnects wait longer after each drop in a row, up to the cap, and start over after an open", () => {
  const problems: string[] = [];
  const feed = follow({ onProblem: (message) => problems.push(message) });
  for (let drop = 0; drop < 7; drop++) {
    feed.last().drop(1006);
    feed.scheduler.fire();
  }
  assert.deepEqual(feed.scheduler.delays, [500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
  assert.equal(feed.sockets.length, 8, "one new socket per drop");
  feed.last().onopen!({});
  feed.last().drop(1001, "server shutting down");
  assert.equal(feed.scheduler.delays.at(-1), 500, "an open resets the delay");
  assert.equal(problems.length, 8);
  assert.equal(problems[0], "Live updates of 'm' interrupted (1006); reconnecting…");
  assert.equal(problems[7], "Live updates of 'm' interrupted (1001 server shutting down); reconnecting…");
  feed.stop();
});

Deno.test("a socket that opens again after drops reports the feed recovered, once; the first open does not", () => {
  const heard: string[] = [];
  const feed = follow({
    onProblem: () => heard.push("problem"),
    onRecovered: () => heard.push("recovered"),
  });
  feed.last().onopen!({});
  assert.deepEqual(heard, []);
  feed.last().drop(1006);
  feed.scheduler.fire();
  feed.last().drop(1006);
  feed.scheduler.fire();
  feed.last().onopen!({});
  assert.deepEqual(heard, ["problem", "problem", "recovered"]);
  feed.stop();
});

Deno.test("equal initial and maximum delays reconnect at a fixed delay (the http repository's)", () => {
  const feed = follow({ initialDelayMs: 25, maxDelayMs: 25 });
  for (let drop = 0; drop < 4; drop++) {
    feed.last().drop();
    feed.scheduler.fire();
  }
  assert.deepEqual(feed.scheduler.delays, [25, 25, 25, 25]);
  feed.stop();
});

Deno.test("stop closes the socket normally, and neither its close nor a waiting timer reconnects", () => {
  const problems: string[] = [];
  const open = follow({ onProblem: (message) => problems.push(message) });
  open.sockets[0].onopen!({});
  open.stop();
  assert.equal(open.sockets[0].closedWith, 1000);
  open.sockets[0].drop(1000);
  assert.deepEqual([open.sockets.length, open.scheduler.pending, problems], [1, 0, []]);

  const waiting = follow();
  waiting.sockets[0].drop();
  assert.equal(waiting.scheduler.pending, 1);
  waiting.stop();
  assert.equal(waiting.scheduler.pending, 0, "the reconnect timer is cleared");
  waiting.scheduler.fire();
  assert.equal(waiting.sockets.length, 1, "no socket after stop");
});

Deno.test("without a WebSocket option the global constructor is used", () => {
  const sockets: FakeSocket[] = [];
  const original = globalThis.WebSocket;
  globalThis.WebSocket = class extends FakeSocket {
    constructor(url: string) {
      super(url, sockets);
    }
  } as unknown as typeof WebSocket;
  try {
    const stop = changeFeed({ baseUrl: "https://h/" }).subscribe("a b", () => {});
    assert.deepEqual(sockets.map((s) => s.url), ["wss://h/models/a%20b/subscribe"]);
    stop();
  } finally {
    globalThis.WebSocket = original;
  }
});

Deno.test("a normal closure by the server is the model's deletion: one deleted event, no reconnect", () => {
  const problems: string[] = [];
  const feed = follow({ onProblem: (message) => problems.push(message) });
  feed.sockets[0].onopen!({});
  feed.sockets[0].drop(1000, "model deleted");
  assert.deepEqual(feed.events, [WHOLE_MODEL, { kind: "deleted", modelId: "m" }]);
  assert.deepEqual([feed.sockets.length, feed.scheduler.pending, problems], [1, 0, []]);
  feed.stop();
  assert.equal(feed.sockets[0].closedWith, 1000);
});

Deno.test("a closure for an ended credential (4401) is final: its reason reported, no reconnect", () => {
  const problems: string[] = [];
  const feed = follow({ onProblem: (message) => problems.push(message) });
  feed.sockets[0].onopen!({});
  feed.sockets[0].drop(CREDENTIAL_ENDED_CLOSE, "the pairing session ended");
  assert.deepEqual(problems, ["Live updates of 'm' stopped: the pairing session ended"]);
  assert.deepEqual([feed.events, feed.sockets.length, feed.scheduler.pending], [[WHOLE_MODEL], 1, 0]);
  feed.scheduler.fire();
  assert.equal(feed.sockets.length, 1);
  feed.stop();
});

Deno.test("a problem says whether the feed ended; a handler that unsubscribes cancels the reconnect", () => {
  const finals: boolean[] = [];
  const ended = follow({ onProblem: (_message, final) => finals.push(final) });
  ended.sockets[0].onopen!({});
  ended.sockets[0].drop(1001);
  ended.scheduler.fire();
  ended.last().onopen!({});
  ended.last().drop(CREDENTIAL_ENDED_CLOSE);
  assert.deepEqual(finals, [false, true]);

  const feed: { stop?: () => void } = {};
  const stopping = follow({ onProblem: () => feed.stop!() });
  feed.stop = stopping.stop;
  stopping.sockets[0].drop(1006);
  assert.equal(stopping.scheduler.pending, 0, "no reconnect waits");
});

/** A REST API answering `getInfo` with `answer` (the feed's `invoker`). */
const restAnswering = (answer: () => Promise<unknown>): Invoker => ({ invoke: answer } as Invoker);

/** Lets the feed's question to the REST API settle. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("a drop after which the REST API no longer finds the model ends the feed as a deletion", async () => {
  const problems: string[] = [];
  const feed = follow({
    invoker: restAnswering(() => Promise.reject(new ServiceError("not_found", "Model 'm' not found"))),
    onProblem: (message) => problems.push(message),
  });
  feed.sockets[0].onopen!({});
  feed.sockets[0].drop();
  await settled();
  assert.deepEqual(feed.events, [WHOLE_MODEL, { kind: "deleted", modelId: "m" }]);
  assert.deepEqual(problems, ["Live updates of 'm' interrupted (1006); reconnecting…"]);
  assert.equal(feed.scheduler.pending, 0, "no reconnect left");
});

for (const kind of ["unauthorized", "forbidden"] as const) {
  Deno.test(`a drop after which the REST API refuses the key (${kind}) ends the feed with a final problem`, async () => {
    const problems: string[] = [];
    const feed = follow({
      invoker: restAnswering(() => Promise.reject(new ServiceError(kind, "Missing or invalid API key"))),
      onProblem: (message, final) => problems.push(`${final ? "final" : "problem"}: ${message}`),
    });
    feed.sockets[0].onopen!({});
    feed.sockets[0].drop();
    await settled();
    assert.deepEqual(problems, [
      "problem: Live updates of 'm' interrupted (1006); reconnecting…",
      "final: Live updates of 'm' stopped: Missing or invalid API key",
    ]);
    assert.deepEqual([feed.events, feed.scheduler.pending], [[WHOLE_MODEL], 0]);
  });
}

Deno.test("a drop while the REST API does not answer either, or finds the model, keeps reconnecting", async () => {
  for (
    const answer of [
      () =>
        Promise.reject(
          new ServiceError("internal", "Cannot reach the server at http://h: connection refused"),
        ),
      () => Promise.resolve({}),
    ]
  ) {
    const feed = follow({ invoker: restAnswering(answer) });
    feed.sockets[0].onopen!({});
    feed.sockets[0].drop();
    await settled();
    assert.equal(feed.scheduler.pending, 1, "a reconnect is scheduled");
    feed.scheduler.fire();
    assert.equal(feed.sockets.length, 2, "the feed reconnected");
    feed.stop();
  }
});

Deno.test("a drop after which the REST API says the model is stored but not loaded keeps reconnecting, and says why", async () => {
  const problems: string[] = [];
  let loaded = false;
  const feed = follow({
    invoker: restAnswering(() =>
      loaded ? Promise.resolve({}) : Promise.reject(
        new ServiceError("conflict", "Model 'm' is stored but not loaded: …"),
      )
    ),
    onProblem: (message, final) => problems.push(`${final ? "final" : "problem"}: ${message}`),
    onRecovered: () => problems.push("recovered"),
  });
  feed.sockets[0].onopen!({});
  feed.sockets[0].drop(4409, "model not loaded");
  await settled();
  feed.scheduler.fire();
  feed.last().drop();
  await settled();
  assert.deepEqual(problems, [
    "problem: Live updates of 'm' interrupted (4409 model not loaded); reconnecting…",
    "problem: Live updates of 'm' wait for it to load: Model 'm' is stored but not loaded: …",
    "problem: Live updates of 'm' interrupted (1006); reconnecting…",
    "problem: Live updates of 'm' wait for it to load: Model 'm' is stored but not loaded: …",
  ]);
  // Repaired: the next reconnect opens, and the model is read again whole.
  loaded = true;
  assert.equal(feed.scheduler.pending, 1, "a reconnect is scheduled");
  feed.scheduler.fire();
  feed.last().onopen!({});
  assert.deepEqual([feed.events, problems.at(-1)], [[WHOLE_MODEL, WHOLE_MODEL], "recovered"]);
  feed.stop();
});

Deno.test("a refusal answered after the subscriber left is not reported", async () => {
  const problems: string[] = [];
  const feed = follow({
    invoker: restAnswering(() => Promise.reject(new ServiceError("not_found", "Model 'm' not found"))),
    onProblem: (message) => problems.push(message),
  });
  feed.sockets[0].drop();
  feed.stop();
  await settled();
  assert.deepEqual([feed.events, problems.length], [[], 1]);
});
