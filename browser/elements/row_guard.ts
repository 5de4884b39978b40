/**
 * Writes into a section list row made conditional on the row: another writer
 * may have removed or moved rows since the element last read the view, so the
 * row's index may name another row by the time the model applies the write. A
 * row's write goes as a JSON Patch whose first operations `test` the values
 * the row shows, as the element knows them: on another row one fails, and the
 * model refuses the whole patch as a conflict instead of writing there.
 *
 * @module
 */
import {
  type EvaluatedComponent,
  isPrefixOf,
  type Json,
  parsePath,
  type Path,
  pathsOverlap,
  pathToPointer,
  ServiceError,
} from "../../engine/mod.ts";
import { boundValues, childrenOf } from "./view_context.ts";

/** A JSON Patch operation of a row's write. */
export interface RowOp {
  op: "test" | "add" | "replace" | "remove";
  path: string;
  value?: Json;
  [member: string]: unknown;
}

/** What the person is told when the row of their write changed meanwhile (nothing was written). */
export const ROW_CHANGED = "This row changed meanwhile (another writer): the edit was not saved.";

/**
 * What the person is told when the row of a handler (a row's button, a row field's `onChange`) changed
 * meanwhile: another writer's move, or the person's own Remove above it (its mutations name the row by index).
 */
export const ROW_CHANGED_ACTION = "This row changed meanwhile: its action did not run.";

const pathOf = (address: string): Path | null => {
  const parsed = parsePath(address);
  return parsed.ok ? parsed.path : null;
};

/** The outermost section list row of a tree holding `path` (or being it). */
function rowAt(components: Json | undefined, path: Path): EvaluatedComponent | undefined {
  for (const c of Array.isArray(components) ? components as unknown as EvaluatedComponent[] : []) {
    const rows = c.type === "sectionList" ? childrenOf(c) : [];
    const row = rows.find((r) => {
      const at = typeof r.bind === "string" ? pathOf(r.bind) : null;
      return at !== null && isPrefixOf(at, path);
    });
    const found = row ?? rowAt(c.components, path);
    if (found) return found;
  }
  return undefined;
}

/** A row holding `path`: its own path, what it shows (by path), and the `test`s of those values. */
interface Guard {
  row: Path;
  shown: [Path, Json | undefined][];
  tests: RowOp[];
}

function guardOf(components: Json | undefined, path: Path, changing: string[]): Guard | null {
  const row = rowAt(components, path);
  const at = row && pathOf(String(row.bind));
  if (!row || !at) return null;
  const moving = changing.map(pathOf).filter((p): p is Path => p !== null);
  const shown = [...boundValues(row.components)].flatMap(([address, value]) => {
    const p = pathOf(address);
    // A row's field may show a value outside the row (a currency for all rows): it says nothing of the row.
    return p && isPrefixOf(at, p) ? [[p, value] as [Path, Json | undefined]] : [];
  });
  const tests = shown.flatMap(([p, value]) =>
    value === undefined || moving.some((m) => pathsOverlap(m, p))
      ? []
      : [{ op: "test" as const, path: pathToPointer(p), value }]
  );
  return { row: at, shown, tests };
}

/**
 * The `test`s that the outermost section list row holding `address` is still the row `components` show: one
 * per value the row shows, but those at or around `changing` (the fields written, derived members, the
 * element's own writes under way: their values may change meanwhile without the row changing). Empty when
 * `address` is in no row, or nothing of its row can be tested.
 */
export function rowTests(
  components: Json | undefined,
  address: string,
  changing: string[],
): RowOp[] {
  const path = pathOf(address);
  return (path && guardOf(components, path, changing)?.tests) || [];
}

/**
 * `value` written at `address` as a patch testing its row first ({@link rowTests}, `address` changing too);
 * `null` when there is nothing to test, or when the patch could not create what a mutation creates (a missing
 * container above the field): the write then goes as a mutation.
 */
export function rowWrite(
  components: Json | undefined,
  address: string,
  value: Json,
  changing: string[],
): RowOp[] | null {
  return rowWrites(components, [[address, value]], changing);
}

/**
 * The `writes` (address, value) of one row as one patch testing that row first (see {@link rowWrite}); `null`
 * when one of them is outside the first one's row, or cannot go as a patch: they then go as a mutation.
 */
export function rowWrites(
  components: Json | undefined,
  writes: [string, Json][],
  changing: string[],
): RowOp[] | null {
  const paths = writes.map(([address]) => pathOf(address));
  const guard = paths[0] && guardOf(components, paths[0], [...writes.map(([a]) => a), ...changing]);
  if (!guard?.tests.length) return null;
  const ops = paths.map((path, i) => path && opOf(guard, path, writes[i][1]));
  return ops.every((op) => op) ? [...guard.tests, ...ops as RowOp[]] : null;
}

/** The operation writing `value` at `path` of `guard`'s row, `null` when it cannot go as a patch. */
function opOf(guard: Guard, path: Path, value: Json): RowOp | null {
  if (path.length <= guard.row.length || !isPrefixOf(guard.row, path)) return null;
  const parent = path.slice(0, -1);
  // The row exists once its tests pass; a container below it, when it holds a value the row shows.
  const known = parent.length === guard.row.length ||
    guard.shown.some(([p, v]) => v !== undefined && isPrefixOf(parent, p));
  if (!known) return null;
  // An array element shown is replaced (`add` would insert before it); an object member is set either way.
  const exists = guard.shown.some(([p, v]) =>
    v !== undefined && p.length === path.length && isPrefixOf(p, path)
  );
  const op = exists && typeof path.at(-1) === "number" ? "replace" : "add";
  return { op, path: pathToPointer(path), value };
}

/** The address of the outermost section list row of `components` holding `address` (`undefined`: none). */
export function rowOf(components: Json | undefined, address: string): string | undefined {
  const path = pathOf(address);
  const row = path ? rowAt(components, path) : undefined;
  return typeof row?.bind === "string" ? row.bind : undefined;
}

/** Whether `err` is the model's refusal of a patch whose row test failed (the row changed meanwhile). */
export function isRowConflict(err: unknown): boolean {
  return err instanceof ServiceError && err.kind === "conflict" &&
    err.message.includes("Test operation failed");
}
