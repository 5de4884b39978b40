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
import { jsonBytes } from "../json/measure.ts";
import { formatPath, pointerToPath, type Segment, WILDCARD } from "../json/path.ts";
import { isContainer, type Json } from "../json/value.ts";
import type { CycleState } from "./cycle_state.ts";
import type { PatchOperation } from "./results.ts";
import { checkEnclosing, checkIndexLimit, checkWrite } from "./write_checks.ts";

/** Validates and applies an RFC 6902 patch, operation by operation. */
export function applyPatch(state: CycleState, ops: PatchOperation[]): void {
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

/** Checks, applies and records one operation; returns the paths it wrote. */
function applyOperation(state: CycleState, op: PatchOperation, index: number): Segment[][] {
  const path = resolvePointer(state, op.path, index, "path");
  const from = op.from !== undefined && (op.op === "move" || op.op === "copy")
    ? resolvePointer(state, op.from, index, "from")
    : null;
  const violations: SchemaViolation[] = [];
  const moved = from ? state.draft.get(from) : undefined;
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
      if (moved !== undefined) violations.push(...checkWrite(state, path, moved));
      break;
    case "copy":
      if (moved !== undefined) violations.push(...checkWrite(state, path, moved));
      break;
  }
  if (violations.length) throw schemaViolation(violations);

  const parentOf = (p: Segment[]) => p.slice(0, -1);
  const arrayAt = (p: Segment[]) => Array.isArray(state.draft.get(parentOf(p)));
  const wasPresent = state.draft.get(path) !== undefined;
  const oldLength = (p: Segment[]) => (state.draft.get(parentOf(p)) as Json[] | undefined)?.length ?? 0;
  const insertShifts = (op.op === "add" || op.op === "move" || op.op === "copy") && path.length > 0 &&
    arrayAt(path) && (path[path.length - 1] as number) < oldLength(path);
  state.draft.grow(growthOf(op, insertShifts ? undefined : state.draft.get(path), moved, path));
  if (from) state.draft.prepare(parentOf(from));
  if (path.length) state.draft.prepare(parentOf(path));
  let outcome: { newDocument: Json };
  try {
    outcome = jp.applyOperation(state.draft.root, op as never, true, true, true, index) as never;
  } catch (err) {
    const e = err as { name?: string };
    const message = `Patch operation ${index} (${op.op} ${op.path}): ${patchMessage(err)}`;
    throw e.name === "TEST_OPERATION_FAILED" ? new ServiceError("conflict", message) : unprocessable(message);
  }
  if (op.op === "test") return [];
  if (outcome.newDocument !== state.draft.root) state.draft.set([], outcome.newDocument, state.created);

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
    const written = state.draft.get(path);
    if ((!wasPresent || insertShifts) && isContainer(written)) state.created.push(path);
  }
  return from ? [from, path] : [path];
}

/** Approximate JSON bytes an operation adds: what it writes less what it replaces (`old`). */
function growthOf(
  op: PatchOperation,
  old: Json | undefined,
  moved: Json | undefined,
  path: Segment[],
): number {
  const last = path[path.length - 1];
  const member = old === undefined && typeof last === "string" ? last.length + 4 : 0;
  switch (op.op) {
    case "add":
    case "replace":
      return jsonBytes(op.value) - jsonBytes(old) + member;
    case "copy":
      return jsonBytes(moved) - jsonBytes(old) + member;
    case "remove":
      return -jsonBytes(old);
    default:
      return 0;
  }
}

/** The first line of a patch library error, with its name. */
function patchMessage(err: unknown): string {
  const e = err as { name?: string; message?: string };
  const first = (e.message ?? String(err)).split("\n")[0];
  return e.name && e.name !== "Error" ? `${first} [${e.name}]` : first;
}
