import assert from "node:assert/strict";
import { commitMutation, runtimeOf } from "../_test_utils.ts";
import { MAX_TRACED_CHARS, type TraceRecord, TraceRing } from "./traces.ts";

const trace = (targetPath: string, result = 0): TraceRecord => ({
  targetPath,
  expression: "x",
  inputPaths: [],
  result,
  constraintPassed: null,
  errorMessage: null,
});

Deno.test("TraceRing keeps the newest records up to its capacity", () => {
  const ring = new TraceRing(3);
  ring.push([trace("$.a", 1), trace("$.a", 2)]);
  ring.push([trace("$.a", 3), trace("$.a", 4)]);
  assert.deepEqual(ring.find("$.a").map((t) => t.result), [2, 3, 4]);
  ring.push([1, 2, 3, 4, 5].map((n) => trace("$.a", n * 10)));
  assert.deepEqual(ring.find("$.a").map((t) => t.result), [30, 40, 50]);
});

Deno.test("TraceRing.find matches exact targets, element patterns, meta keys and node keys", () => {
  const ring = new TraceRing(10);
  ring.push([
    trace("$.items[0].total"),
    trace("$.items[1].total"),
    trace("$.items[1].total#maximum"),
    trace("$constraint:c"),
    trace("$effect:e"),
  ]);
  assert.deepEqual(ring.find("$.items[*].total").map((t) => t.targetPath), [
    "$.items[0].total",
    "$.items[1].total",
  ]);
  assert.deepEqual(ring.find("$.items[1].total").map((t) => t.targetPath), ["$.items[1].total"]);
  assert.deepEqual(ring.find("$.items[*].total#maximum").map((t) => t.targetPath), [
    "$.items[1].total#maximum",
  ]);
  assert.equal(ring.find("$constraint:c").length, 1);
  assert.equal(ring.find("$effect:e").length, 1);
  assert.deepEqual(ring.find("$constraint:missing"), []);
});

Deno.test("TraceRing.find limit keeps the newest N; clear and clone", () => {
  const ring = new TraceRing(10);
  ring.push([1, 2, 3].map((n) => trace("$.a", n)));
  assert.deepEqual(ring.find("$.a", 2).map((t) => t.result), [2, 3]);
  assert.deepEqual(ring.find("$.a", 0), []);
  const copy = ring.clone();
  ring.clear();
  assert.deepEqual(ring.find("$.a"), []);
  assert.equal(copy.find("$.a").length, 3, "a clone is independent");
});

Deno.test("TraceRing keeps order and capacity across many small appends that wrap around", () => {
  const ring = new TraceRing(5);
  for (let n = 1; n <= 23; n++) ring.push(n % 3 ? [trace("$.a", n)] : [trace("$.a", n), trace("$.b", n)]);
  assert.deepEqual(ring.find("$.a").map((t) => t.result), [20, 21, 22, 23]);
  assert.deepEqual(ring.find("$.b").map((t) => t.result), [21]);
  const copy = ring.clone();
  ring.push([trace("$.a", 24)]);
  assert.deepEqual(copy.find("$.a").map((t) => t.result), [20, 21, 22, 23], "a clone is independent");
  assert.deepEqual(ring.find("$.a", 2).map((t) => t.result), [23, 24]);
});

Deno.test("a trace's errorMessage is at most MAX_TRACED_CHARS and says its length, as its other members", async () => {
  const { runtime } = await runtimeOf({
    id: "loud",
    schema: { type: "object", properties: { s: { type: "string" } } },
    constraints: [{ id: "c", expr: "s < 1", message: "m", policy: "flag" }],
  });
  // jsonata-js quotes the string whole (T2009); spaced, so the message is cut only past 2000 characters.
  const result = await commitMutation(runtime, { "$.s": "a ".repeat(950) });
  const { errorMessage } = result!.traces.find((t) => t.targetPath === "$constraint:c")!;
  assert.match(errorMessage!, /^T2009: The values "a a /);
  assert.match(errorMessage!, /… \(19\d\d characters\)$/);
  assert.equal(errorMessage!.indexOf("…"), MAX_TRACED_CHARS);
});
