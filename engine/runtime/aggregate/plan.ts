/**
 * Which derivations are kept incrementally, and what their elements hold. A
 * derivation qualifies when its expression is an aggregate of a plain field
 * path (`$sum(items.lineTotal)`, also `$count`, `$average`, `$max`, `$min`,
 * rooted at `$` or `$$` or not) that reads through exactly one array: its one
 * read is `$.items[*].lineTotal`. Each element of that array then contributes
 * the number at its field path, and the aggregate's value is JSONata's over
 * those numbers in document order. Whatever the data holds beyond that (the
 * array missing or not an array, an element or a field that is an array, a
 * non-number, an object flagged as a JSONata function) is reported as
 * {@link UNSUPPORTED}, and the derivation is evaluated as usual.
 *
 * @module
 */
import type { AstNode } from "../../expr/compiler.ts";
import type { Read } from "../../expr/dependencies.ts";
import type { Segment } from "../../json/path.ts";
import { WILDCARD } from "../../json/path.ts";
import type { Json } from "../../json/value.ts";
import type { AggregateKind } from "./aggregate_index.ts";

/** How a derivation is kept incrementally. */
export interface AggregatePlan {
  kind: AggregateKind;
  /** Where the array is (`["items"]`). */
  arrayPath: Segment[];
  /** The field path inside each element (`["lineTotal"]`). */
  fieldKeys: string[];
  /** The element pattern (`$.items[*]`) and the read (`$.items[*].lineTotal`). */
  elementPattern: Segment[];
  read: Read;
}

/** Data outside what an aggregate index keeps: evaluate the expression instead. */
export const UNSUPPORTED: unique symbol = Symbol("unsupported");

const KINDS = new Set<string>(["sum", "count", "average", "max", "min"]);

/** True for a node with no members beyond `type`, `value`, `position` and `extra` (unset ones aside). */
function isBare(node: AstNode, extra?: string): boolean {
  return Object.entries(node).every(([key, value]) =>
    key === "type" || key === "value" || key === "position" || key === extra || value === undefined
  );
}

/** The field names of a plain path (`items.lineTotal`, `$.items.lineTotal`), or null. */
function fieldPath(node: AstNode): string[] | null {
  if (node.type !== "path" || !isBare(node, "steps")) return null;
  const names: string[] = [];
  for (const [index, step] of (node.steps as AstNode[]).entries()) {
    if (!isBare(step)) return null;
    if (index === 0 && step.type === "variable" && (step.value === "" || step.value === "$")) continue;
    if (step.type !== "name") return null;
    names.push(step.value as string);
  }
  return names;
}

/** The plan of a global derivation, or null when it is not an aggregate over one array's elements. */
export function aggregatePlan(ast: AstNode, reads: readonly Read[]): AggregatePlan | null {
  const members = ["type", "value", "position", "procedure", "arguments"];
  if (
    ast.type !== "function" || Object.entries(ast).some(([k, v]) => !members.includes(k) && v !== undefined)
  ) {
    return null;
  }
  const procedure = ast.procedure as AstNode;
  const args = ast.arguments as AstNode[];
  if (procedure.type !== "variable" || !isBare(procedure) || !KINDS.has(procedure.value as string)) {
    return null;
  }
  if (args.length !== 1 || reads.length !== 1 || reads[0].elementScoped) return null;
  const names = fieldPath(args[0]);
  const path = reads[0].path;
  const star = path.indexOf(WILDCARD);
  if (!names || star < 1 || path.lastIndexOf(WILDCARD) !== star || star === path.length - 1) return null;
  const segments = path.filter((s) => s !== WILDCARD);
  if (segments.length !== names.length || segments.some((s, i) => s !== names[i])) return null;
  return {
    kind: procedure.value as AggregateKind,
    arrayPath: path.slice(0, star),
    fieldKeys: path.slice(star + 1) as string[],
    elementPattern: path.slice(0, star + 1),
    read: reads[0],
  };
}

/** A plain object JSONata reads fields of (not an array, not flagged as a function). */
function isPlainObject(value: unknown): value is Record<string, Json> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const flagged = value as { _jsonata_function?: unknown; _jsonata_lambda?: unknown };
  return flagged._jsonata_function !== true && flagged._jsonata_lambda !== true;
}

/** The array at `path` through plain objects, or {@link UNSUPPORTED}. */
export function arrayAt(doc: Json, path: readonly Segment[]): Json[] | typeof UNSUPPORTED {
  let value: Json | undefined = doc;
  for (const key of path) {
    if (!isPlainObject(value) || !Object.hasOwn(value, key as string)) return UNSUPPORTED;
    value = value[key as string];
  }
  return Array.isArray(value) ? value : UNSUPPORTED;
}

/** The number an element contributes (`undefined` for none), or {@link UNSUPPORTED}. */
export function elementNumber(
  element: Json,
  keys: readonly string[],
): number | undefined | typeof UNSUPPORTED {
  let value: Json | undefined = element;
  for (const key of keys) {
    if (value === null || typeof value !== "object") return undefined;
    if (!isPlainObject(value)) return UNSUPPORTED;
    value = Object.hasOwn(value, key) ? value[key] : undefined;
  }
  if (value === undefined) return undefined;
  return typeof value === "number" ? value : UNSUPPORTED;
}
