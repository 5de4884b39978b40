import assert from "node:assert/strict";
import { isPrefixOf, type Path, pathsOverlap, type Segment, WILDCARD } from "./path.ts";
import { PathIndex } from "./path_index.ts";

/** A small deterministic generator, so a failure names a reproducible case. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const SEGMENTS: Segment[] = ["a", "b", "items", 0, 1, WILDCARD];

function randomPath(next: () => number): Path {
  const length = Math.floor(next() * 4);
  return Array.from({ length }, () => SEGMENTS[Math.floor(next() * SEGMENTS.length)]);
}

Deno.test("PathIndex finds exactly what comparing with every path finds, in the order given", () => {
  const next = random(7);
  for (let round = 0; round < 300; round++) {
    const items = Array.from({ length: Math.floor(next() * 12) }, (_, i) => ({ i, path: randomPath(next) }));
    const index = new PathIndex(items, (item) => item.path);
    for (let query = 0; query < 20; query++) {
      const path = randomPath(next);
      const expected = items.filter((item) => pathsOverlap(path, item.path));
      const at = `paths ${JSON.stringify(items.map((item) => item.path))}, query ${JSON.stringify(path)}`;
      assert.deepEqual(index.overlapping(path), expected, at);
      assert.equal(index.overlapsAny(path), expected.length > 0, at);
      const holding = (target: Path) => isPrefixOf(target, path);
      assert.equal(index.find(path, holding), items.find((item) => holding(item.path)), at);
    }
  }
});

Deno.test("PathIndex: items added later come after the others, whatever their first segment", () => {
  const index = new PathIndex<Path>([["a", "x"]], (path) => path);
  index.add([WILDCARD, "a"]);
  index.add(["a"]);
  index.add([]);
  index.add(["b"]);
  assert.deepEqual(index.overlapping(["a", "x", "y"]), [["a", "x"], [WILDCARD, "a"], ["a"], []]);
  assert.deepEqual(index.overlapping([0]), [["a", "x"], [WILDCARD, "a"], ["a"], [], ["b"]]);
  assert.deepEqual(index.find(["a", "x"], (other) => other.length === 1), ["a"]);
  assert.deepEqual(index.overlapping(["c"]), [[]], "under a name no path starts with, only the empty path");
});
