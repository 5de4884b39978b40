import assert from "node:assert/strict";
import jsonata from "jsonata";
import { BUILTINS } from "./functions.ts";

const CALLS: [string, unknown[]][] = [
  ["round", [2.5]],
  ["round", [3.5]],
  ["round", [-2.5]],
  ["round", [1.005, 2]],
  ["round", [1234.5678, -2]],
  ["round", [125, -1]],
  ["round", [1e-7, 3]],
  ["number", ["12.5"]],
  ["number", ["0x1F"]],
  ["number", ["-1e3"]],
  ["number", [true]],
  ["sum", [[0.1, 0.2, 0.3]]],
  ["average", [[1, 2]]],
  ["max", [[-0, 0]]],
  ["min", [5]],
  ["count", [[1, 2, 3]]],
  ["count", [undefined]],
  ["floor", [-1.5]],
  ["ceil", [-1.5]],
  ["abs", [-0]],
  ["exists", [null]],
  ["lookup", [{ a: 1 }, "a"]],
  ["lookup", [[{ a: 1 }, { a: [2, 3] }], "a"]],
  ["string", [0.1 + 0.2]],
];

/** A result without the sequence flags (JSON has no -0 either, which none of these produce). */
const plain = (value: unknown) => value === undefined ? undefined : JSON.parse(JSON.stringify(value));

Deno.test("builtins give JSONata's results", async () => {
  for (const [name, args] of CALLS) {
    const source = `$${name}(${args.map((_, i) => `$a${i}`).join(", ")})`;
    const bindings = Object.fromEntries(args.map((a, i) => [`a${i}`, a]));
    const expected = await jsonata(source).evaluate({}, bindings);
    assert.deepEqual(plain(BUILTINS[name].apply(args)), plain(expected), source);
  }
});

Deno.test("arguments a signature refuses bail", () => {
  for (
    const [name, args] of [["sum", ["1"]], ["abs", ["1"]], ["number", [[1]]], ["string", [1, 1]]] as const
  ) {
    assert.throws(() => BUILTINS[name].apply([...args]), name);
  }
});
