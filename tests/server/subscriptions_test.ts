/**
 * The subscription hub's bounded sending with sockets whose buffers the test
 * controls: a subscriber that lags is dropped and mutations never wait for it.
 */
import assert from "node:assert/strict";
import { ModelService, type ServiceEvent } from "../../engine/service/service.ts";
import {
  CLIENT_MESSAGE_CLOSE,
  CLIENT_MESSAGE_REASON,
  MODEL_UNLOADED_CLOSE,
  parsePathFilter,
  SLOW_SUBSCRIBER_CLOSE,
  SubscriptionHub,
} from "../../server/subscriptions.ts";
import { orderSpec } from "./helpers.ts";

/** A WebSocket stand-in: records sends, exposes a settable bufferedAmount. */
class FakeSocket extends EventTarget {
  readyState: number = WebSocket.OPEN;
  bufferedAmount = 0;
  sent: string[] = [];
  closedWith: { code?: number; reason?: string } | null = null;
  send(text: string): void {
    this.sent.push(text);
  }
  close(code?: number, reason?: string): void {
    this.closedWith = { code, reason };
    this.readyState = WebSocket.CLOSED;
    this.dispatchEvent(new Event("close"));
  }
  asSocket(): WebSocket {
    return this as unknown as WebSocket;
  }
}

async function setup(maxBufferedBytes: number) {
  const service = await ModelService.open();
  await service.createModel(orderSpec());
  return { service, hub: new SubscriptionHub(service, maxBufferedBytes) };
}

Deno.test("a subscriber whose unsent frames pass the bound is dropped; mutations are not held up", async () => {
  const { service, hub } = await setup(1000);
  const fast = new FakeSocket();
  const slow = new FakeSocket();
  hub.add("order", fast.asSocket(), null);
  hub.add("order", slow.asSocket(), null);

  await service.mutate("order", { "$.qty": 1 });
  assert.equal(slow.sent.length, 1);
  slow.bufferedAmount = 990; // the peer stopped reading
  const result = await service.mutate("order", { "$.qty": 2 });
  assert.equal(result.success, true, "the mutation committed regardless");
  assert.deepEqual(slow.closedWith, { code: SLOW_SUBSCRIBER_CLOSE, reason: "subscriber too slow" });
  assert.equal(slow.sent.length, 1, "nothing more was queued for it");
  assert.equal(fast.sent.length, 2, "other subscribers keep receiving");
  assert.equal(hub.size, 1);
  await service.mutate("order", { "$.qty": 3 });
  assert.equal(fast.sent.length, 3);
  hub.close();
  assert.deepEqual(fast.closedWith, { code: 1001, reason: "server shutting down" });
});

Deno.test("frames for a socket still opening are held, bounded the same way, and flushed on open", async () => {
  const { service, hub } = await setup(400);
  const opening = new FakeSocket();
  opening.readyState = WebSocket.CONNECTING;
  hub.add("order", opening.asSocket(), null);
  await service.mutate("order", { "$.qty": 1 });
  assert.equal(opening.sent.length, 0);
  opening.readyState = WebSocket.OPEN;
  opening.dispatchEvent(new Event("open"));
  assert.equal(opening.sent.length, 1);
  assert.equal(JSON.parse(opening.sent[0]).kind, "mutation");

  const stuck = new FakeSocket();
  stuck.readyState = WebSocket.CONNECTING;
  hub.add("order", stuck.asSocket(), null);
  for (let i = 0; i < 5; i++) await service.mutate("order", { "$.note": `n${i}` });
  // Dropped while opening: closed once open (a socket still opening cannot be closed), sent nothing.
  assert.equal(stuck.closedWith, null);
  assert.equal(hub.size, 1, "only the open one is subscribed");
  stuck.readyState = WebSocket.OPEN;
  stuck.dispatchEvent(new Event("open"));
  assert.deepEqual(stuck.closedWith, { code: SLOW_SUBSCRIBER_CLOSE, reason: "subscriber too slow" });
  assert.deepEqual(stuck.sent, []);
  hub.close();
});

Deno.test("frames go only to the model's subscribers; a closed hub stops listening", async () => {
  const { service, hub } = await setup(10_000);
  await service.createModel(orderSpec("other"));
  const socket = new FakeSocket();
  hub.add("other", socket.asSocket(), null);
  await service.mutate("order", { "$.qty": 1 });
  assert.equal(socket.sent.length, 0);
  await service.mutate("other", { "$.qty": 1 });
  assert.equal(JSON.parse(socket.sent[0]).modelId, "other");
  hub.close();
  await service.mutate("other", { "$.qty": 2 });
  assert.equal(socket.sent.length, 1, "a closed hub no longer listens");
});

Deno.test("parsePathFilter canonicalises prefixes and rejects malformed ones", () => {
  assert.equal(parsePathFilter(undefined), null);
  assert.equal(parsePathFilter(" "), null);
  assert.equal(parsePathFilter(" , ,"), null, "naming no prefix filters nothing out, as an empty value");
  assert.deepEqual(parsePathFilter("$.a, b[0] ,$.c[*]"), [["a"], ["b", 0], ["c", -1]]);
  assert.throws(() => parsePathFilter("$.["), /not a valid address/);
});

Deno.test("a paths filter passes writes inside a prefix and writes to its ancestors, not siblings", async () => {
  const { service, hub } = await setup(10_000);
  const file = new FakeSocket();
  const fileName = new FakeSocket();
  const note = new FakeSocket();
  hub.add("order", file.asSocket(), parsePathFilter("$.file"));
  hub.add("order", fileName.asSocket(), parsePathFilter("$.file.name"));
  hub.add("order", note.asSocket(), parsePathFilter("$.note"));

  await service.mutate("order", { "$.file.name": "a" }); // inside $.file, equal to $.file.name
  assert.deepEqual([file.sent.length, fileName.sent.length, note.sent.length], [1, 1, 0]);
  await service.mutate("order", { "$.file": { name: "b" } }); // ancestor of $.file.name
  assert.deepEqual([file.sent.length, fileName.sent.length, note.sent.length], [2, 2, 0]);
  await service.mutate("order", { "$": { qty: 1, file: { name: "c" } } }); // the root: ancestor of all
  assert.deepEqual([file.sent.length, fileName.sent.length, note.sent.length], [3, 3, 1]);
  await service.mutate("order", { "$.qty": 2 }); // a sibling: none of them
  assert.deepEqual([file.sent.length, fileName.sent.length, note.sent.length], [3, 3, 1]);
  hub.close();
});

Deno.test("the bound counts a frame's UTF-8 bytes, not its UTF-16 units", async () => {
  // A flagged constraint's message travels in the frame: 400 units, 1,040 bytes (words: a run over 200
  // characters would be cut short).
  const euroSpec = (id: string) => ({
    id,
    schema: { type: "object", properties: { n: { type: "integer" } } },
    constraints: [{ id: "wide", expr: "n < 1", message: "€€€€ ".repeat(80), policy: "flag" }],
  });
  const subscribed = async (maxBufferedBytes: number) => {
    const service = await ModelService.open();
    await service.createModel(euroSpec("euro"));
    const hub = new SubscriptionHub(service, maxBufferedBytes);
    const socket = new FakeSocket();
    hub.add("euro", socket.asSocket(), null);
    await service.mutate("euro", { "$.n": 1 });
    hub.close();
    return socket;
  };
  const roomy = await subscribed(2_000);
  assert.equal(roomy.sent.length, 1);
  const units = roomy.sent[0].length;
  const bytes = new TextEncoder().encode(roomy.sent[0]).byteLength;
  assert.ok(units < 1_000 && bytes > 1_000, `the frame is ${units} units and ${bytes} bytes`);

  const tight = await subscribed(1_000);
  assert.equal(tight.sent.length, 0, "the frame's bytes pass the bound");
  assert.deepEqual(tight.closedWith, { code: SLOW_SUBSCRIBER_CLOSE, reason: "subscriber too slow" });
});

Deno.test("a client's message drops its subscriber with 1003 at once; the model's other subscribers stay", async () => {
  const { service, hub } = await setup(1024);
  const talker = new FakeSocket();
  const listener = new FakeSocket();
  hub.add("order", talker.asSocket(), null);
  hub.add("order", listener.asSocket(), null);
  talker.dispatchEvent(new MessageEvent("message", { data: "hello" }));
  assert.deepEqual(talker.closedWith, { code: CLIENT_MESSAGE_CLOSE, reason: CLIENT_MESSAGE_REASON });
  assert.equal(hub.size, 1);
  await service.mutate("order", { "$.qty": 2 });
  assert.equal(talker.sent.length, 0);
  assert.equal(listener.sent.length, 1);
  hub.close();
  await service.close();
});

Deno.test("a model deleted ends its feeds (1000); one that stopped loading here closes them to be reopened (4409)", () => {
  let emit: (event: ServiceEvent) => void = () => {};
  const service = { subscribe: (listener: typeof emit) => (emit = listener, () => {}) };
  const hub = new SubscriptionHub(service as unknown as ModelService, 10_000);
  const [unloaded, deleted] = [new FakeSocket(), new FakeSocket()];
  hub.add("a", unloaded.asSocket(), null);
  hub.add("b", deleted.asSocket(), null);
  emit({ type: "deleted", modelId: "a", unloaded: true });
  emit({ type: "deleted", modelId: "b" });
  assert.deepEqual(unloaded.closedWith, { code: MODEL_UNLOADED_CLOSE, reason: "model not loaded" });
  assert.deepEqual(deleted.closedWith, { code: 1000, reason: "model deleted" });
  assert.equal(hub.size, 0);
});

Deno.test("a wildcard in a paths filter is RFC 9535's, any member or index: $.* passes every write", async () => {
  const { service, hub } = await setup(10_000);
  const filters = ["$.*", "$.file.*", "$.*.name", "$.items[*].sku"];
  const sockets = filters.map((filter) => {
    const socket = new FakeSocket();
    hub.add("order", socket.asSocket(), parsePathFilter(filter));
    return socket;
  });
  const received = () => sockets.map((s) => s.sent.length);
  await service.mutate("order", { "$.note": "a" });
  assert.deepEqual(received(), [1, 0, 1, 0], "$.note whole may have held a name");
  await service.mutate("order", { "$.file.name": "f" });
  assert.deepEqual(received(), [2, 1, 2, 0]);
  await service.mutate("order", { "$.file.size": 1 });
  assert.deepEqual(received(), [3, 2, 2, 0]);
  await service.mutate("order", { "$.items": [{ sku: "s" }] });
  await service.mutate("order", { "$.items[0].sku": "t" });
  assert.deepEqual(received(), [5, 2, 3, 2], "$.items whole may have held a name, $.items[0].sku did not");
  hub.close();
});

Deno.test("a field's live metadata changing passes its filter, named in metaUpdated; a meta key filters as its field", async () => {
  const service = await ModelService.open();
  await service.createModel({
    id: "form",
    schema: { type: "object", properties: { express: { type: "boolean" }, note: { type: "string" } } },
    metaDerivations: [{ path: "$.note", property: "required", expr: "express = true" }],
  });
  const hub = new SubscriptionHub(service, 10_000);
  assert.deepEqual(parsePathFilter("$.note#required, note#required"), [["note"], ["note"]]);
  assert.deepEqual(parsePathFilter("$['a#b']"), [["a#b"]], "a # inside a member name stays");
  assert.throws(() => parsePathFilter("#required"), /not a valid address/);
  const [note, noteRequired, other] = ["$.note", "$.note#required", "$.other"].map((filter) => {
    const socket = new FakeSocket();
    hub.add("form", socket.asSocket(), parsePathFilter(filter));
    return socket;
  });
  await service.mutate("form", { "$.express": true });
  for (const socket of [note, noteRequired]) {
    assert.equal(socket.sent.length, 1);
    const frame = JSON.parse(socket.sent[0]);
    assert.deepEqual([frame.mutatedPaths, frame.metaUpdated], [["$.express"], ["$.note#required"]]);
  }
  assert.equal(other.sent.length, 0);
  await service.mutate("form", { "$.note": "n" });
  assert.deepEqual([note.sent.length, noteRequired.sent.length, other.sent.length], [2, 2, 0]);
  hub.close();
  await service.close();
});
