/**
 * The JSONata builtins compiled expressions call directly: each with the
 * argument counts it is compiled for, its signature check (what jsonata-js's
 * signature validation accepts, and how it wraps a single value into an array)
 * and its implementation, ported from jsonata 2.2.2. An argument the
 * signature refuses (T0410, T0412) bails, as does any error of the function.
 *
 * @module
 */
import { bail } from "./context.ts";
import { lookup } from "./sequence.ts";
import { stringOf } from "./values.ts";
import { LONG_TEXT } from "../stand_ins.ts";

/** A builtin applied to its evaluated arguments. */
export type Builtin = (args: unknown[]) => unknown;

/** A compilable builtin: the argument counts it is compiled for and its application. */
export interface BuiltinDefinition {
  arities: readonly number[];
  apply: Builtin;
}

/** `a<n>`: an array of numbers; a single number is wrapped, nothing stays nothing. */
function numbers(arg: unknown): number[] | undefined {
  if (arg === undefined) return undefined;
  if (Array.isArray(arg)) {
    for (let i = 0; i < arg.length; i++) if (typeof arg[i] !== "number") bail();
    return arg as number[];
  }
  if (typeof arg !== "number") bail();
  return [arg];
}

/** `n`: a number or nothing. */
function number(arg: unknown): number | undefined {
  if (arg !== undefined && typeof arg !== "number") bail();
  return arg as number | undefined;
}

function sum(values: number[]): number {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i];
  return total;
}

/** `fn.round`: half to even, at a number of decimal places shifted in the decimal text. */
function round(arg: number, precision: number | undefined): number {
  let value = arg;
  if (precision) {
    const parts = value.toString().split("e");
    value = +(parts[0] + "e" + (parts[1] ? +parts[1] + precision : precision));
  }
  let result = Math.round(value);
  if (Math.abs(result - value) === 0.5 && Math.abs(result % 2) === 1) result = result - 1;
  if (precision) {
    const parts = result.toString().split("e");
    result = +(parts[0] + "e" + (parts[1] ? +parts[1] - precision : -precision));
  }
  return Object.is(result, -0) ? 0 : result;
}

const NUMBER_TEXT = /^-?[0-9]+(\.[0-9]+)?([Ee][-+]?[0-9]+)?$/;
const PREFIXED_NUMBER_TEXT = /^(0[xX][0-9A-Fa-f]+)|(0[oO][0-7]+)|(0[bB][0-1]+)$/;

/** `fn.number` (signature `(nsb)-`). */
function toNumber(arg: unknown): number | undefined {
  if (arg === undefined) return undefined;
  if (typeof arg === "number") return arg;
  if (typeof arg === "string") {
    // A long string is read by the interpreter's guarded `$number`, in paced steps.
    if (arg.length > LONG_TEXT) bail();
    if (NUMBER_TEXT.test(arg) && !isNaN(parseFloat(arg)) && isFinite(arg as unknown as number)) {
      return parseFloat(arg);
    }
    if (PREFIXED_NUMBER_TEXT.test(arg)) return Number(arg);
  }
  if (arg === true) return 1;
  if (arg === false) return 0;
  return bail();
}

const unary = (apply: (arg: unknown) => unknown): BuiltinDefinition => ({
  arities: [1],
  apply: (args) => apply(args[0]),
});

const aggregate = (apply: (values: number[]) => number | undefined): BuiltinDefinition =>
  unary((arg) => {
    const values = numbers(arg);
    return values === undefined ? undefined : apply(values);
  });

const math = (apply: (value: number) => number): BuiltinDefinition =>
  unary((arg) => {
    const value = number(arg);
    return value === undefined ? undefined : apply(value);
  });

/** The builtins compiled expressions call, by name (without `$`). */
export const BUILTINS: Readonly<Record<string, BuiltinDefinition>> = {
  sum: aggregate(sum),
  count: unary((arg) => arg === undefined ? 0 : Array.isArray(arg) ? arg.length : 1),
  max: aggregate((values) => values.length ? Math.max.apply(Math, values) : undefined),
  min: aggregate((values) => values.length ? Math.min.apply(Math, values) : undefined),
  average: aggregate((values) => values.length ? sum(values) / values.length : undefined),
  string: {
    arities: [1, 2],
    apply: ([arg, prettify]) => {
      if (prettify !== undefined && typeof prettify !== "boolean") bail();
      return arg === undefined ? undefined : stringOf(arg, prettify === true);
    },
  },
  number: unary(toNumber),
  abs: math(Math.abs),
  floor: math(Math.floor),
  ceil: math(Math.ceil),
  round: {
    arities: [1, 2],
    apply: ([arg, precision]) => {
      const value = number(arg);
      const places = number(precision);
      return value === undefined ? undefined : round(value, places);
    },
  },
  exists: unary((arg) => arg !== undefined),
  lookup: {
    arities: [2],
    apply: ([input, key]) => {
      if (key !== undefined && typeof key !== "string") bail();
      return lookup(input, key as string);
    },
  },
};
