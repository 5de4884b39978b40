/**
 * Random JSONata expressions and documents for the differential test of the
 * compiled subset: a seeded generator (the same cases on every run) biased
 * towards the subset's edge cases (singleton sequences, nested arrays,
 * missing fields, mixed types, non-integer and negative numbers, numeric
 * strings), with some expressions outside the subset mixed in.
 *
 * @module
 */
import jsonata from "jsonata";
import type { AstNode } from "../compiler.ts";
import { toExpressionError } from "../compiler.ts";
import { toPlainJson } from "../../json/value.ts";
import { compileClosure, type CompiledClosure } from "./compile.ts";
import type { CompiledLimits } from "./context.ts";

/** A failure's JSONata code, or its text for an error of another kind. */
export function codeOf(err: unknown): string {
  const failure = toExpressionError(err);
  return failure.code ?? failure.message;
}

/** jsonata-js's answer (run on copies): a plain JSON result, or the error's code. */
export async function interpret(
  source: string,
  input: unknown,
  bindings: Record<string, unknown>,
): Promise<{ value?: unknown; code?: string }> {
  try {
    // A fresh copy: jsonata-js flags (and, for `{}` over an empty array, extends) arrays it is given.
    return {
      value: toPlainJson(await jsonata(source).evaluate(structuredClone(input), structuredClone(bindings))),
    };
  } catch (err) {
    return { code: codeOf(err) };
  }
}

/** The compiled closure of `source` under `limits`, or null (a syntax error, or outside the subset). */
export function compiledOf(source: string, limits: CompiledLimits): CompiledClosure | null {
  let ast: AstNode;
  try {
    ast = jsonata(source).ast() as unknown as AstNode;
  } catch {
    return null;
  }
  return compileClosure(ast, limits);
}

/** A seeded pseudo-random source (mulberry32). */
export class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** One of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
}

const FIELDS = ["a", "b", "n", "s", "items", "price", "qty", "tags"] as const;
const NUMBERS = [0, 1, 2, -3, 0.1, 0.2, 1.005, 2.5, 3.5, -0.5, 10, 1e21, 123.456, 7];
const STRINGS = ["", "x", "abc", "10", "1e3", "0x1F", "-2.5", "a", "b"];

/** A random JSON value, `depth` levels deep at most. */
export function randomValue(random: Random, depth: number): unknown {
  const roll = random.int(depth > 0 ? 10 : 6);
  switch (roll) {
    case 0:
    case 1:
      return random.pick(NUMBERS);
    case 2:
      return random.pick(STRINGS);
    case 3:
      return random.chance(0.5);
    case 4:
      return random.chance(0.5) ? null : random.int(5);
    case 5:
      return random.int(100) / 4;
    case 6:
    case 7:
      return randomObject(random, depth - 1);
    default: {
      const length = random.int(4);
      const element = random.int(3);
      return Array.from(
        { length },
        () =>
          element === 0
            ? random.pick(NUMBERS)
            : element === 1
            ? randomObject(random, depth - 1)
            : randomValue(random, depth - 1),
      );
    }
  }
}

/** A random object over a small set of field names. */
export function randomObject(random: Random, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of FIELDS) if (random.chance(0.45)) out[field] = randomValue(random, depth);
  // A document object that looks like a JSONata function to jsonata-js.
  if (random.chance(0.01)) out._jsonata_function = true;
  return out;
}

/** A document of any shape, biased towards the empty, the missing and the nested. */
export function randomDocument(random: Random): unknown {
  return random.pick([
    () => undefined,
    () => null,
    () => random.pick(["", "x", "10"]),
    () => random.pick([0, -1, 2.5]),
    () => [],
    () => [[], [[]], [1, [2, 3]]],
    () => ({ tags: [], items: [], a: [[]], n: null }),
    () => ({ items: [{ tags: [] }, { tags: [[]] }, { price: 1, qty: [] }], tags: [[], ["a"]] }),
    () => randomValue(random, 3),
    () => randomObject(random, 3),
    () => randomObject(random, 3),
  ])();
}

const OPERATORS = ["+", "-", "*", "/", "%", "=", "!=", "<", "<=", ">", ">=", "and", "or", "&", "in"];
const AGGREGATES = ["$sum", "$count", "$max", "$min", "$average"];
const NUMERIC = ["$abs", "$floor", "$ceil", "$round", "$number", "$string", "$exists"];
/** Forms outside the compiled subset: the compiler must hand them to jsonata-js. */
const OUTSIDE = [
  "$map(items, function($v) { $v.price })",
  "($x := 2; $x * n)",
  "items^(price)",
  "**.price",
  "*.qty",
  "items#$i.price",
  "$uppercase(s)",
  "[1..3]",
  "$now() != ''",
  "items@$i.qty",
  "%.a",
];

/** A random path: optional root variable, one to three steps, filters, `[]`. */
function randomPath(random: Random, depth: number): string {
  const roots = ["", "", "", "$.", "$$.", "$parent.", "$const."];
  let path = random.pick(roots);
  const steps = 1 + random.int(3);
  for (let i = 0; i < steps; i++) {
    if (i > 0) path += ".";
    if (depth > 0 && i > 0 && random.chance(0.15)) {
      path += random.pick([
        () => `(${randomExpression(random, depth - 1)})`,
        () => `{"v": ${randomExpression(random, depth - 1)}}`,
        () => `[${randomExpression(random, depth - 1)}, ${randomExpression(random, depth - 1)}]`,
        () => "$",
      ])();
    } else {
      path += random.pick(FIELDS);
    }
    if (random.chance(0.2)) path += `[${randomFilter(random, depth)}]`;
  }
  if (random.chance(0.1)) path += "[]";
  if (depth > 0 && random.chance(0.05)) {
    path += `{${randomPath(random, 0)}: ${randomExpression(random, depth - 1)}}`;
  }
  return path;
}

function randomFilter(random: Random, depth: number): string {
  return random.pick([
    () => String(random.pick([0, 1, -1, 2, 0.5])),
    () => `${random.pick(FIELDS)} > ${random.pick([0, 1, 2])}`,
    () => `$ = ${JSON.stringify(random.pick(STRINGS))}`,
    () => depth > 0 ? randomExpression(random, depth - 1) : "true",
  ])();
}

/** A random expression of the compiled subset (and, rarely, one outside it). */
export function randomExpression(random: Random, depth = 3): string {
  if (depth <= 0 || random.chance(0.25)) {
    return random.pick([
      () => randomPath(random, 0),
      () => String(random.pick(NUMBERS.filter((n) => n >= 0))),
      () => JSON.stringify(random.pick(STRINGS)),
      () => random.pick(["true", "false", "null"]),
      () => random.pick(["$", "$$", "$parent", "$const"]),
    ])();
  }
  const sub = () => randomExpression(random, depth - 1);
  return random.pick([
    () => randomPath(random, depth),
    () => randomPath(random, depth),
    () => `${sub()} ${random.pick(OPERATORS)} ${sub()}`,
    () => `${sub()} ${random.pick(OPERATORS)} ${sub()}`,
    () => `-${sub()}`,
    () => `${sub()} ? ${sub()}${random.chance(0.6) ? ` : ${sub()}` : ""}`,
    () => `[${Array.from({ length: random.int(4) }, sub).join(", ")}]`,
    () => `{"k": ${sub()}, ${JSON.stringify(random.pick(FIELDS))}: ${sub()}}`,
    () => `{${randomPath(random, 0)}: ${sub()}}`,
    () => `${random.pick(AGGREGATES)}(${sub()})`,
    () => `${random.pick(AGGREGATES)}(${randomPath(random, 0)})`,
    () => `${random.pick(NUMERIC)}(${sub()})`,
    () => `$round(${sub()}, ${random.pick([0, 1, 2, -1])})`,
    () => `$string(${sub()}, ${random.pick(["true", "false"])})`,
    () => `$lookup(${sub()}, ${random.pick(['"a"', '"price"', "s"])})`,
    () => `(${sub()}${random.chance(0.3) ? `; ${sub()}` : ""})`,
    () => `(${sub()})[${randomFilter(random, depth - 1)}]`,
    () => random.chance(0.2) ? random.pick(OUTSIDE) : randomPath(random, depth),
  ])();
}
