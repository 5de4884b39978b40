/**
 * RFC 6902 JSON Patch applied to a cycle's draft, operation by operation: each
 * operation's writes pass the write checks first, a failed `test` is a
 * conflict, and what an operation touches is marked dirty — a removal or an
 * insertion in an array reshapes its elements.
 *
 * @module
 */
import jp from "fast-json-patch";
import { type SchemaViolation, schemaViolation, ServiceError, unprocessable } from "../errors.ts";
import { type DocumentDraft, recordContainers } from "../json/document.ts";
import { jsonBytes, measureJson } from "../json/measure.ts";
import { formatPath, pointerToPath, type Segment, WILDCARD } from "../json/path.ts";
import { cloneJson, isContainer, type Json, jsonEqual } from "../json/value.ts";
import type { CycleState } from "./cycle_state.ts";
import type { PatchOperation } from "./results.ts";
import { checkEnclosing, checkIndexLimit, checkWrite } from "./write_checks.ts";

/** RFC 6902's operations: the library looks an op up in a plain object, where `constructor` is one too. */
const OPS = new Set(["add", "remove", "replace", "move", "copy", "test"]);

/** Validates and applies an RFC 6902 patch, operation by operation. */
export function applyPatch(state: CycleState, ops: PatchOperation[]): void {
  if (Array.isArray(ops) && ops.some((op) => !OPS.has((op as { op?: unknown } | null)?.op as string))) {
    throw new ServiceError(
      "bad_request",
      "Invalid JSON Patch: Operation `op` property is not one of operations defined in RFC-6902 [OPERATION_OP_INVALID]",
    );
  }
  const shapeError = jp.validate(ops as never);
  if (shapeError) throw new ServiceError("bad_request", `Invalid JSON Patch: ${patchMessage(shapeError)}`);
  const written = ops.flatMap((op, index) => applyOperation(state, op, index));
  const violations = checkEnclosing(state, written);
  if (violations.length) throw schemaViolation(violations);
}

/** The segments a pointer of operation `index` names, within the array-index limit. */
function resolvePointer(state: CycleState, pointer: string, index: number, member: string): Segment[] {
  const path = pointerToPath(pointer, state.draft.root);
  if (typeof path === "string") throw unprocessable(`Patch operation ${index} ${member}: ${path}`);
  checkIndexLimit(state.config, path);
  return path;
}

/**
 * Checks, applies and records one operation; returns the paths it wrote.
 * Places are read here as own members, before the library runs: it would
 * follow inherited ones (`/toString` is `Object.prototype.toString` to it),
 * and it moves a location into its own child by making a cycle. A `copy` or
 * `move` is applied as the `remove` and `add` it stands for, with the value
 * read here (a copy deep-copied).
 */
function applyOperation(state: CycleState, op: PatchOperation, index: number): Segment[][] {
  const path = resolvePointer(state, op.path, index, "path");
  const from = op.from !== undefined && (op.op === "move" || op.op === "copy")
    ? resolvePointer(state, op.from, index, "from")
    : null;
  const label = `Patch operation ${index} (${op.op} ${op.path})`;
  const refuse = (message: string) => unprocessable(`${label}: ${message}`);
  for (const segments of from ? [path, from] : [path]) {
    // The library refuses these names (writing them by assignment would change a prototype), in its own words.
    if (
      segments.some((seg, i) =>
        seg === "__proto__" || (seg === "prototype" && segments[i - 1] === "constructor")
      )
    ) {
      throw refuse(
        `a JSON Patch cannot name a member '__proto__' or 'constructor/prototype'; a mutation can ($.bag['__proto__'])`,
      );
    }
  }
  const target = state.draft.get(path);
  if (op.op === "test") {
    if (jsonEqual(target, op.value)) return [];
    throw new ServiceError("conflict", `${label}: Test operation failed`);
  }
  if ((op.op === "remove" || op.op === "replace") && target === undefined) {
    throw refuse("there is no value at the path");
  }
  const moved = from ? state.draft.get(from) : undefined;
  if (from) {
    if (moved === undefined) throw refuse(`there is no value at '${op.from}'`);
    if (op.op === "move" && encloses(from, path)) {
      // RFC 6902 §4.4: a location cannot be moved into one of its children; onto itself it stays.
      if (from.length === path.length) return [];
      const moving = op.from === "" ? "the document root" : `'${op.from}'`;
      throw refuse(`${moving} cannot be moved into one of its own children`);
    }
    checkNesting(state, moved!, path, refuse);
  }
  const parentOf = (p: Segment[]) => p.slice(0, -1);
  const violations: SchemaViolation[] = [];
  switch (op.op) {
    case "add":
    case "replace":
      violations.push(...checkWrite(state, path, op.value as Json));
      break;
    case "remove":
      violations.push(...checkWrite(state, path, undefined));
      break;
    case "move":
      violations.push(...checkWrite(state, from!, undefined));
      violations.push(...checkWrite(state, path, moved!));
      break;
    case "copy":
      violations.push(...checkWrite(state, path, moved!));
      break;
  }
  if (violations.length) throw schemaViolation(violations);

  const arrayAt = (p: Segment[]) => Array.isArray(state.draft.get(parentOf(p)));
  const oldLength = (p: Segment[]) => (state.draft.get(parentOf(p)) as Json[] | undefined)?.length ?? 0;
  const insertShifts = (op.op === "add" || op.op === "move" || op.op === "copy") && path.length > 0 &&
    arrayAt(path) && (path[path.length - 1] as number) < oldLength(path);
  if (from) state.draft.prepare(parentOf(from));
  if (path.length) state.draft.prepare(parentOf(path));
  const adds = op.op !== "remove" && op.op !== "replace";
  if (adds && path.length > 0 && !isContainer(state.draft.get(parentOf(path)))) {
    throw refuse("there is no object or array to add to at the path's parent");
  }
  const add: PatchOperation = { op: "add", path: op.path, value: moved! };
  const steps = op.op === "move"
    ? [{ op: "remove", path: op.from! } as PatchOperation, add]
    : [op.op === "copy" ? add : op];
  let root = state.draft.root;
  for (const step of steps) {
    // Each step's growth is measured on the document its predecessors left, and admitted before a copy is made.
    state.draft.grow(stepGrowth(state.draft, step));
    const applied = op.op === "copy" ? { ...step, value: cloneJson(moved!) } : step;
    try {
      root = (jp.applyOperation(root, applied as never, true, true, true, index) as { newDocument: Json })
        .newDocument;
    } catch (err) {
      throw refuse(patchMessage(err));
    }
  }
  if (root !== state.draft.root) state.draft.set([], root);

  const touch = (p: Segment[], removed: boolean) => {
    const inArray = p.length > 0 && typeof p[p.length - 1] === "number";
    if (inArray && removed) state.dirty.add([...parentOf(p), WILDCARD], true);
    else state.dirty.add(p);
    state.mutated.add(formatPath(p));
  };
  if (op.op === "move" && from) touch(from, true);
  if (op.op === "remove") touch(path, true);
  else {
    touch(path, false);
    if (insertShifts) state.dirty.add([...parentOf(path), WILDCARD], true);
    recordContainers(path, state.draft.get(path)!, state.created);
  }
  return from ? [from, path] : [path];
}

/** Whether `prefix` is `path` or the path of a container enclosing it. */
function encloses(prefix: readonly Segment[], path: readonly Segment[]): boolean {
  return prefix.length <= path.length && prefix.every((seg, i) => path[i] === seg);
}

/**
 * Refuses a `copy` or `move` of `value` to `path` that would nest the document
 * deeper than `svc.limits.max-depth` (the value's depth plus the path's; the
 * door measures only the values a patch carries).
 */
function checkNesting(
  state: CycleState,
  value: Json,
  path: readonly Segment[],
  refuse: (message: string) => Error,
): void {
  const { maxDepth } = state.config;
  const room = maxDepth - path.length;
  if (room >= 0 && measureJson(value, room).ok) return;
  throw refuse(`the document would be nested deeper than svc.limits.max-depth (${maxDepth} levels)`);
}

/**
 * JSON bytes an `add`, `remove` or `replace` step adds to the draft, exactly:
 * an `add` into an array inserts an element, elsewhere it sets a member. A
 * step at the root adds nothing here: the root it leaves is set on the draft,
 * which counts it. Nor does a step the library will refuse (a parent missing
 * after a move's removal), so that it is refused as such.
 */
function stepGrowth(draft: DocumentDraft, step: PatchOperation): number {
  const path = pointerToPath(step.path, draft.root);
  if (typeof path === "string" || path.length === 0) return 0;
  if (step.op === "remove") return draft.deleteGrowth(path);
  const parent = draft.get(path.slice(0, -1));
  if (!isContainer(parent)) return 0;
  return jsonBytes(step.value) + draft.placeGrowth(path, step.op === "add" && Array.isArray(parent));
}

/** The first line of a patch library error, with its name. */
function patchMessage(err: unknown): string {
  const e = err as { name?: string; message?: string };
  const first = (e.message ?? String(err)).split("\n")[0];
  return e.name && e.name !== "Error" ? `${first} [${e.name}]` : first;
}
