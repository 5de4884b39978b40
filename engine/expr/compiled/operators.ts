/**
 * JSONata's operators on evaluated operands, ported from jsonata 2.2.2
 * (`evaluateNumericExpression`, `evaluateEqualityExpression`,
 * `evaluateComparisonExpression`, `evaluateIncludesExpression`,
 * `evaluateStringConcat`, unary minus). Where jsonata-js throws a type error
 * (T2001, T2002, T2009, T2010, D1002) these bail and the interpreter reports it.
 *
 * @module
 */
import { bail } from "./context.ts";
import { deepEqual, isNumeric, stringOf } from "./values.ts";

/** A binary operator on two evaluated operands. */
export type BinaryOperator = (lhs: unknown, rhs: unknown) => unknown;

function arithmetic(apply: (l: number, r: number) => number): BinaryOperator {
  return (lhs, rhs) => {
    if (lhs !== undefined && !isNumeric(lhs)) bail();
    if (rhs !== undefined && !isNumeric(rhs)) bail();
    if (lhs === undefined || rhs === undefined) return undefined;
    return apply(lhs as number, rhs as number);
  };
}

function comparison(apply: (l: string | number, r: string | number) => boolean): BinaryOperator {
  return (lhs, rhs) => {
    const lType = typeof lhs;
    const rType = typeof rhs;
    const lComparable = lType === "undefined" || lType === "string" || lType === "number";
    const rComparable = rType === "undefined" || rType === "string" || rType === "number";
    if (!lComparable || !rComparable) bail();
    if (lType === "undefined" || rType === "undefined") return undefined;
    if (lType !== rType) bail();
    return apply(lhs as string | number, rhs as string | number);
  };
}

/** The operators a compiled binary node may apply (`and`/`or` short-circuit and are compiled apart). */
export const BINARY_OPERATORS: Readonly<Record<string, BinaryOperator>> = {
  "+": arithmetic((l, r) => l + r),
  "-": arithmetic((l, r) => l - r),
  "*": arithmetic((l, r) => l * r),
  "/": arithmetic((l, r) => l / r),
  "%": arithmetic((l, r) => l % r),
  "=": (lhs, rhs) => lhs !== undefined && rhs !== undefined && deepEqual(lhs, rhs),
  "!=": (lhs, rhs) => lhs !== undefined && rhs !== undefined && !deepEqual(lhs, rhs),
  "<": comparison((l, r) => l < r),
  "<=": comparison((l, r) => l <= r),
  ">": comparison((l, r) => l > r),
  ">=": comparison((l, r) => l >= r),
  "&": (lhs, rhs) => (lhs === undefined ? "" : stringOf(lhs)) + (rhs === undefined ? "" : stringOf(rhs)),
  in: (lhs, rhs) => {
    if (lhs === undefined || rhs === undefined) return false;
    const members = Array.isArray(rhs) ? rhs : [rhs];
    for (let i = 0; i < members.length; i++) if (members[i] === lhs) return true;
    return false;
  },
};

/** Unary minus: a number negated, nothing for nothing, anything else an error (D1002). */
export function negate(value: unknown): unknown {
  if (value === undefined) return undefined;
  if (!isNumeric(value)) bail();
  return -(value as number);
}
