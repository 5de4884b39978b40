import assert from "node:assert/strict";
import { ServiceError } from "../errors.ts";
import { SerialQueue } from "./queue.ts";

/** A promise resolved from outside. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => open = resolve);
  return { promise, open };
}

Deno.test("SerialQueue runs tasks one at a time in call order", async () => {
  const queue = new SerialQueue(10, "test");
  const order: string[] = [];
  const first = gate();
  const a = queue.run(async () => {
    order.push("a start");
    await first.promise;
    order.push("a end");
  }, true);
  const b = queue.run(() => {
    order.push("b");
    return Promise.resolve();
  }, false);
  await Promise.resolve();
  assert.deepEqual(order, ["a start"]);
  first.open();
  await Promise.all([a, b]);
  assert.deepEqual(order, ["a start", "a end", "b"]);
});

Deno.test("SerialQueue refuses counted tasks beyond its limit with too_many; uncounted ones always queue", async () => {
  const queue = new SerialQueue(2, "model 'm'");
  const hold = gate();
  const running = queue.run(() => hold.promise, true);
  const waiting = queue.run(() => Promise.resolve("second"), true);
  assert.equal(queue.pending, 2);
  await assert.rejects(() => queue.run(() => Promise.resolve(), true), (err: unknown) => {
    assert.ok(err instanceof ServiceError);
    assert.equal(err.kind, "too_many");
    assert.equal(err.message, "Mutation queue of model 'm' is full (svc.mutation-queue-size = 2)");
    return true;
  });
  const read = queue.run(() => Promise.resolve("read"), false);
  assert.equal(queue.pending, 2, "an uncounted task is not counted");
  hold.open();
  assert.deepEqual(await Promise.all([running, waiting, read]), [undefined, "second", "read"]);
  assert.equal(queue.pending, 0);
  assert.equal(await queue.run(() => Promise.resolve("again"), true), "again");
});

Deno.test("SerialQueue: a failing task rejects its caller and frees its place", async () => {
  const queue = new SerialQueue(1, "q");
  await assert.rejects(() => queue.run(() => Promise.reject(new Error("boom")), true), /boom/);
  assert.equal(queue.pending, 0);
  await assert.rejects(() =>
    queue.run(() => {
      throw new Error("sync boom");
    }, true), /sync boom/);
  assert.equal(await queue.run(() => Promise.resolve(1), true), 1);
});

Deno.test("SerialQueue: on an idle queue a task starts at once; behind a running one it waits its turn", async () => {
  const queue = new SerialQueue(10, "q");
  const order: string[] = [];
  const hold = gate();
  const first = queue.run(async () => {
    order.push("first");
    await hold.promise;
  }, true);
  assert.deepEqual(order, ["first"], "the idle queue started the task before run returned");
  const second = queue.run(() => {
    order.push("second");
    return Promise.resolve();
  }, true);
  const third = queue.run(() => {
    order.push("third");
    return Promise.reject(new Error("third failed"));
  }, false);
  await Promise.resolve();
  assert.deepEqual(order, ["first"]);
  hold.open();
  await Promise.all([first, second, assert.rejects(third, /third failed/)]);
  assert.deepEqual(order, ["first", "second", "third"]);
  assert.equal(queue.pending, 0, "the counts are down when the caller resumes");
  // Idle again after a failure: the next task starts at once, and sees nothing of the failure.
  const fourth = queue.run(() => {
    order.push("fourth");
    return Promise.resolve(4);
  }, true);
  assert.deepEqual(order.at(-1), "fourth");
  assert.equal(await fourth, 4);
});

Deno.test("SerialQueue: a task queued by a running task runs after it, in call order with the others", async () => {
  const queue = new SerialQueue(10, "q");
  const order: string[] = [];
  let inner: Promise<void> | undefined;
  const outer = queue.run(async () => {
    order.push("outer start");
    inner = queue.run(() => {
      order.push("inner");
      return Promise.resolve();
    }, true);
    await Promise.resolve();
    order.push("outer end");
  }, true);
  const after = queue.run(() => {
    order.push("after");
    return Promise.resolve();
  }, true);
  await Promise.all([outer, after]);
  await inner;
  assert.deepEqual(order, ["outer start", "outer end", "inner", "after"]);
});
