/**
 * Random JSON documents, values and paths for the property tests of document
 * sizes (the draft's, a runtime's, a service's limit): seeded, so a failing
 * sequence replays from its seed.
 *
 * @module
 */
import { getAt } from "./document.ts";
import type { Segment } from "./path.ts";
import type { Json } from "./value.ts";

/** A seeded random source (mulberry32), so a failing sequence can be replayed from its seed. */
export function randomSource(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

/** Member names with escapes, non-ASCII, a lone surrogate, an index-like name and `__proto__`. */
const NAMES = [
  "a",
  "b",
  "list",
  "é€",
  "😀",
  'q"\\',
  "\u0001\n",
  "\udc00",
  "0",
  "__proto__",
  "x".repeat(40),
];

/** A random JSON value: integers, non-integers, strings with escapes, and small nested containers. */
export function randomValue(random: (below: number) => number, depth = 0): Json {
  switch (random(depth < 2 ? 9 : 6)) {
    case 0:
      return random(2001) - 1000;
    case 1:
      return [0.1, -1.5e-7, 1 / 3, 1e21, -0, 2 ** 53 + 2, 123.25, 5e-324][random(8)];
    case 2:
      return NAMES[random(NAMES.length)];
    case 3:
      return [true, false, null][random(3)];
    case 4:
      return "";
    case 5:
      return random(2) ? {} : [];
    case 6:
    case 7:
      return Array.from({ length: random(4) }, () => randomValue(random, depth + 1));
    default:
      return Object.fromEntries(
        Array.from(
          { length: random(4) },
          () => [NAMES[random(NAMES.length)], randomValue(random, depth + 1)],
        ),
      );
  }
}

/** A random path of 1 to 4 segments: names, and indices in and past (up to 3) the end of arrays. */
export function randomPath(random: (below: number) => number, doc: Json): Segment[] {
  const path: Segment[] = [];
  let cur: Json | undefined = doc;
  const length = 1 + random(4);
  while (path.length < length) {
    const seg: Segment = Array.isArray(cur) && random(5)
      ? random(cur.length + 3)
      : NAMES[random(NAMES.length)];
    path.push(random(10) ? seg : random(3)); // sometimes an index where a name fits, and the other way round
    cur = getAt(cur, [path[path.length - 1]]);
  }
  return path;
}

/** A path that holds a value, found by a random walk of at least one step (the root when it holds nothing). */
export function presentPath(random: (below: number) => number, doc: Json): Segment[] {
  const path: Segment[] = [];
  let cur = doc;
  while (cur !== null && typeof cur === "object" && (path.length === 0 || random(4))) {
    const keys: Segment[] = Array.isArray(cur) ? cur.map((_, i) => i) : Object.keys(cur);
    if (!keys.length) break;
    path.push(keys[random(keys.length)]);
    cur = getAt(cur, [path[path.length - 1]])!;
  }
  return path;
}

/** A path whose parent holds a container: a new or present member, an index up to the end, or `-` (appending). */
export function childPath(random: (below: number) => number, doc: Json): (Segment | "-")[] {
  const parent = random(4) ? presentPath(random, doc) : [];
  const holder = getAt(doc, parent);
  if (Array.isArray(holder)) return [...parent, random(3) ? "-" : random(holder.length + 1)];
  if (holder !== null && typeof holder === "object") return [...parent, NAMES[random(NAMES.length)]];
  return randomPath(random, doc);
}
