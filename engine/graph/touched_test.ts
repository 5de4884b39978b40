import assert from "node:assert/strict";
import type { Read } from "../expr/dependencies.ts";
import { type Segment, WILDCARD } from "../json/path.ts";
import { DirtySet } from "./dirty.ts";
import { touchedInOrder } from "./touched.ts";

interface TestNode {
  name: string;
  reads: Read[];
  elementPattern: Segment[] | null;
  kind?: "DERIVED";
  target?: Segment[];
}

const read = (...path: Segment[]): Read => ({ path, elementScoped: false });
const node = (name: string, reads: Read[], elementPattern: Segment[] | null = null): TestNode => ({
  name,
  reads,
  elementPattern,
});

const NODES: TestNode[] = [
  node("a", [read("a")]),
  node("b", [read("b", "x")]),
  node("lines", [read("items", WILDCARD, "qty")], ["items", WILDCARD]),
  node("whole", [read()]),
  node("rate", [read("rate"), read("a")]),
  node("rootArray", [read(0, "x")]),
  node("total", [read("subtotal")]),
];

function visit(dirty: DirtySet, nodes = NODES): string[] {
  return [...touchedInOrder(nodes, () => dirty)].map((n) => n.name);
}

Deno.test("a change visits the nodes reading its first member, and those that read anything", () => {
  const dirty = new DirtySet();
  dirty.add(["a"]);
  assert.deepEqual(visit(dirty), ["a", "whole", "rate", "rootArray"]);
  const items = new DirtySet();
  items.add(["items", 2, "qty"]);
  assert.deepEqual(visit(items), ["lines", "whole", "rootArray"]);
  assert.deepEqual(visit(new DirtySet()), []);
});

Deno.test("every node the dirty set touches is visited, whatever changed", () => {
  const changes: Segment[][] = [["a"], ["b"], ["b", "x", 3], ["items"], ["items", 0], ["rate"], ["zzz"]];
  for (const change of changes) {
    const dirty = new DirtySet();
    dirty.add(change);
    const visited = new Set(visit(dirty));
    for (const n of NODES) {
      if (dirty.touches(n)) {
        assert.ok(visited.has(n.name), `${n.name} is touched by ${JSON.stringify(change)}`);
      }
    }
  }
});

Deno.test("the root, or a path starting at an index, visits everything in order", () => {
  const all = NODES.map((n) => n.name);
  const root = new DirtySet();
  root.add([]);
  assert.deepEqual(visit(root), all);
  const index = new DirtySet();
  index.add([0, "x"]);
  assert.deepEqual(visit(index), all);
});

Deno.test("changes made while visiting bring in the later nodes they touch, never earlier ones", () => {
  const chain = [
    node("first", [read("input")]),
    node("reader of second", [read("second")]),
    node("second", [read("first")]),
    node("reader of second, later", [read("second")]),
  ];
  const dirty = new DirtySet();
  dirty.add(["input"]);
  const visited: string[] = [];
  for (const n of touchedInOrder(chain, () => dirty)) {
    visited.push(n.name);
    // Each node writes its own name, like a derivation writing its target.
    dirty.add([n.name]);
  }
  assert.deepEqual(visited, ["first", "second", "reader of second, later"]);
});

Deno.test("a dirty set replaced between steps is read afresh", () => {
  let dirty = new DirtySet();
  dirty.add(["a"]);
  const visited: string[] = [];
  for (const n of touchedInOrder(NODES, () => dirty)) {
    visited.push(n.name);
    if (n.name === "a") {
      dirty = new DirtySet();
      dirty.add(["subtotal"]);
    }
  }
  assert.deepEqual(visited, ["a", "whole", "rate", "rootArray", "total"]);
});

Deno.test("a write of a container enclosing a derivation's target visits the derivation", () => {
  const nodes = [
    { ...node("net", [read("price")]), kind: "DERIVED" as const, target: ["totals", "net"] },
    node("other", [read("price")]),
  ];
  const dirty = new DirtySet();
  dirty.add(["totals"]);
  assert.deepEqual(visit(dirty, nodes), ["net"]);
});

Deno.test("many nodes queued at once, or queued again while visiting, are each visited once, in order", () => {
  // 40 nodes over 5 names, each read by 16: a change of 3 names queues 24 of them, most more than once.
  const names = ["n0", "n1", "n2", "n3", "n4"];
  const nodes = Array.from(
    { length: 40 },
    (_, i) => node(`node${i}`, [read(names[i % 5]), read(names[(i + 1) % 5])]),
  );
  const expected = (changed: string[]) =>
    nodes.filter((n) => n.reads.some((r) => changed.includes(r.path[0] as string))).map((n) => n.name);
  for (const changed of [["n0"], ["n0", "n2"], ["n1", "n2", "n3"], names]) {
    const dirty = new DirtySet();
    for (const name of changed) {
      dirty.add([name]);
      dirty.add([name, "x"]);
    }
    assert.deepEqual(visit(dirty, nodes), expected(changed));
  }
  // Each visit writes a name again (and a new one halfway), queueing positions already queued and new ones.
  const dirty = new DirtySet();
  dirty.add(["n0"]);
  const visited: string[] = [];
  for (const n of touchedInOrder(nodes, () => dirty)) {
    visited.push(n.name);
    dirty.add([n.reads[1].path[0] as string, visited.length]);
  }
  assert.equal(new Set(visited).size, visited.length);
  assert.deepEqual(visited, [...visited].sort((a, b) => Number(a.slice(4)) - Number(b.slice(4))));
  assert.deepEqual(visited, nodes.map((n) => n.name));
});
