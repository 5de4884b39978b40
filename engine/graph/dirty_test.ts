import assert from "node:assert/strict";
import type { Read } from "../expr/dependencies.ts";
import { formatPath, pathsOverlap, type Segment, WILDCARD } from "../json/path.ts";
import { DirtySet } from "./dirty.ts";
import type { ExprNode } from "./graph.ts";

const DOC = { items: [{ qty: 1 }, { qty: 2 }, { qty: 3 }], rate: 2 };

function node(reads: Read[], elementPattern: Segment[] | null = null): ExprNode {
  return {
    key: "n",
    kind: "CONSTRAINT",
    label: "n",
    expression: "",
    reads,
    elementPattern,
    index: 0,
    level: 1,
  };
}
const root = (...path: Segment[]): Read => ({ path, elementScoped: false });
const element = (...path: Segment[]): Read => ({ path, elementScoped: true });
const picked = (dirty: DirtySet, n: ExprNode) => dirty.elementsToEvaluate(n, DOC).map(formatPath);

Deno.test("an empty set touches nothing", () => {
  const dirty = new DirtySet();
  assert.equal(dirty.empty, true);
  assert.equal(dirty.touches(node([root("rate")])), false);
});

Deno.test("touches: a change meets reads of the same location, its ancestors and descendants", () => {
  const dirty = new DirtySet();
  dirty.add(["order", "customer", "name"]);
  assert.equal(dirty.touches(node([root("order", "customer", "name")])), true);
  assert.equal(dirty.touches(node([root("order")])), true, "a read of the container sees the change");
  assert.equal(dirty.touches(node([root("order", "customer", "name", "first")])), true);
  assert.equal(dirty.touches(node([root("order", "total")])), false);
});

Deno.test("touches: wildcard reads match indexed writes", () => {
  const dirty = new DirtySet();
  dirty.add(["items", 1, "qty"]);
  assert.equal(dirty.touches(node([root("items", WILDCARD, "qty")])), true);
  assert.equal(dirty.touches(node([root("items", WILDCARD, "price")])), false);
});

Deno.test("the root marks everything; duplicates are merged", () => {
  const dirty = new DirtySet();
  dirty.add(["a"]);
  dirty.add(["a"]);
  assert.equal(dirty.paths.length, 1);
  dirty.add([]);
  assert.equal(dirty.everything, true);
  assert.deepEqual(dirty.paths, [{ path: [], shift: false }]);
  dirty.add(["b"]);
  assert.equal(dirty.paths.length, 1, "nothing is added once everything changed");
  assert.equal(dirty.touches(node([root("unrelated")])), true);
  assert.deepEqual(picked(dirty, node([element("items", WILDCARD, "qty")], ["items", WILDCARD])), [
    "$.items[0]",
    "$.items[1]",
    "$.items[2]",
  ]);
});

Deno.test("per-element nodes: only the touched element is re-evaluated", () => {
  const perElement = node([element("items", WILDCARD, "qty")], ["items", WILDCARD]);
  const dirty = new DirtySet();
  dirty.add(["items", 1, "qty"]);
  assert.deepEqual(picked(dirty, perElement), ["$.items[1]"]);
});

Deno.test("per-element nodes: a replaced element or array re-evaluates what it covers", () => {
  const perElement = node([element("items", WILDCARD, "qty")], ["items", WILDCARD]);
  const one = new DirtySet();
  one.add(["items", 2]);
  assert.deepEqual(picked(one, perElement), ["$.items[2]"]);
  const all = new DirtySet();
  all.add(["items"]);
  assert.deepEqual(picked(all, perElement), ["$.items[0]", "$.items[1]", "$.items[2]"]);
});

Deno.test("per-element nodes: a root-scoped read re-evaluates every element", () => {
  const mixed = node([element("items", WILDCARD, "qty"), root("rate")], ["items", WILDCARD]);
  const dirty = new DirtySet();
  dirty.add(["rate"]);
  assert.deepEqual(picked(dirty, mixed), ["$.items[0]", "$.items[1]", "$.items[2]"]);
  const unrelated = new DirtySet();
  unrelated.add(["other"]);
  assert.deepEqual(picked(unrelated, mixed), []);
});

Deno.test("per-element nodes: a shift (insert/remove elsewhere) does not re-evaluate moved elements", () => {
  const perElement = node([element("items", WILDCARD, "qty")], ["items", WILDCARD]);
  const aggregate = node([root("items", WILDCARD, "qty")]);
  const dirty = new DirtySet();
  dirty.add(["items", WILDCARD], true);
  assert.deepEqual(picked(dirty, perElement), []);
  assert.equal(dirty.touches(aggregate), true, "an aggregate over the array still sees the shift");
});

Deno.test("reshapes: array replaced, ancestor replaced, insert/remove; not an element's own fields", () => {
  const pattern = ["items", WILDCARD];
  const check = (path: Segment[], shift = false) => {
    const dirty = new DirtySet();
    dirty.add(path, shift);
    return dirty.reshapes(pattern);
  };
  assert.equal(check(["items"]), true);
  assert.equal(check(["items", WILDCARD], true), true);
  assert.equal(check(["items", 2, "qty"]), false);
  assert.equal(check(["items", 2]), false);
  assert.equal(check(["other"]), false);
  const everything = new DirtySet();
  everything.add([]);
  assert.equal(everything.reshapes(pattern), true);
});

Deno.test("per-element nodes: a shift inside an element re-evaluates that element (regression)", () => {
  const orderSum = node([element("orders", WILDCARD, "lines", WILDCARD, "amount")], ["orders", WILDCARD]);
  const dirty = new DirtySet();
  dirty.add(["orders", 0, "lines", WILDCARD], true); // a line of order 0 was removed
  const doc = { orders: [{ lines: [] }, { lines: [] }] };
  assert.deepEqual(dirty.elementsToEvaluate(orderSum, doc).map(formatPath), ["$.orders[0]"]);
});

Deno.test("a location marked twice is kept once, however many are marked (shifts apart)", () => {
  const dirty = new DirtySet();
  const paths: Segment[][] = [];
  for (let i = 0; i < 20; i++) paths.push(["items", i, "qty"], ["items", i, "0"], [`m${i}`]);
  for (const path of paths) dirty.add([...path]);
  for (const path of paths) dirty.add([...path]);
  dirty.add(["items", 3], true);
  dirty.add(["items", 3], true);
  dirty.add(["items", 3]);
  const kept = dirty.paths.map((d) => `${d.shift ? "shift " : ""}${formatPath(d.path)}`);
  assert.deepEqual(kept, [...paths.map(formatPath), "shift $.items[3]", "$.items[3]"]);
});

Deno.test("elementsToEvaluate names each element once, nested wildcards included", () => {
  const doc = { a: [{ b: [{ v: 1 }, { v: 2 }] }, { b: [{ v: 3 }] }] };
  const dirty = new DirtySet();
  dirty.add(["a", 0, "b", 1, "v"]);
  dirty.add(["a", 1, "b", 0, "v"]);
  dirty.add(["a", 0, "b", 1]);
  const pattern = ["a", WILDCARD, "b", WILDCARD];
  const reads = [element("a", WILDCARD, "b", WILDCARD, "v")];
  assert.deepEqual(dirty.elementsToEvaluate(node(reads, pattern), doc).map(formatPath), [
    "$.a[0].b[1]",
    "$.a[1].b[0]",
  ]);
});

Deno.test("touches answers alike before and after the set grows past its direct comparisons", () => {
  let state = 11;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  // Many names and few indices, so that most reads meet none of the marked paths.
  const segments: Segment[] = [..."abcdefghijkl", 0, WILDCARD];
  const randomPath = (min: number) =>
    Array.from(
      { length: min + Math.floor(next() * 3) },
      () => segments[Math.floor(next() * segments.length)],
    );
  for (let round = 0; round < 100; round++) {
    const dirty = new DirtySet();
    const marked: Segment[][] = [];
    for (let added = 0; added < 20; added++) {
      const path = randomPath(1);
      dirty.add(path);
      marked.push(path);
      for (let query = 0; query < 5; query++) {
        const reads = [root(...randomPath(0)), root(...randomPath(0))];
        const expected = marked.some((m) => reads.some((r) => pathsOverlap(r.path, m)));
        assert.equal(
          dirty.touches(node(reads)),
          expected,
          `${JSON.stringify(marked)} / ${JSON.stringify(reads)}`,
        );
      }
    }
  }
});

Deno.test("a write of a container enclosing a derivation's target re-evaluates it, not the same write elsewhere", () => {
  const derivation = (target: Segment[], elementPattern: Segment[] | null = null): ExprNode => ({
    ...node([root("price")], elementPattern),
    kind: "DERIVED",
    target,
  });
  const net = derivation(["totals", "net"]);
  const written = (...path: Segment[]) => {
    const dirty = new DirtySet();
    dirty.add(path);
    return dirty;
  };
  assert.equal(written("totals").touches(net), true);
  assert.equal(written("totals", "other").touches(net), false);
  assert.equal(written("other").touches(net), false);
  const meta = { ...net, kind: "META" as const };
  assert.equal(written("totals").touches(meta), false, "a meta value lives beside the document");
  // Past the direct comparisons the paths are indexed: the answer stays the same.
  const many = written("totals");
  for (let i = 0; i < 20; i++) many.add([`f${i}`]);
  assert.equal(many.touches(net), true);

  const sub = derivation(["items", WILDCARD, "sub", "t"], ["items", WILDCARD]);
  assert.deepEqual(picked(written("items", 1, "sub"), sub), ["$.items[1]"]);
  assert.deepEqual(picked(written("items", 1, "other"), sub), []);
  assert.deepEqual(picked(written("items", 1, "sub", "t", "deeper"), sub), []);
});
