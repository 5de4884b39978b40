/**
 * Writes into a section list row made conditional on the row: another writer
 * may have removed or moved rows since the element last read the view, so the
 * row's index may name another row by the time the model applies the write. A
 * row's write goes as a JSON Patch whose first operations `test` the values
 * the row shows, as the element knows them: on another row one fails, and the
 * model refuses the whole patch as a conflict instead of writing there.
 *
 * When what the row shows cannot tell it (a row that is a plain value, a row
 * showing nothing but the fields written, values shown empty: the view shows
 * no `null`), or the write needs containers the row may lack, the row is read
 * from the model first: it must show what the element saw, and the patch then
 * tests it as read.
 *
 * @module
 */
import {
  type EvaluatedComponent,
  formatPath,
  type Invoker,
  isPrefixOf,
  type Json,
  operations,
  type Path,
  pathOrNull,
  pathsOverlap,
  pathToPointer,
  ServiceError,
} from "../../engine/mod.ts";
import { getAt } from "../../engine/json/document.ts";
import { isObject, jsonEqual, setMember } from "../../engine/json/value.ts";
import { boundValues, childrenOf } from "./view_context.ts";

/** A JSON Patch operation of a row's write. */
export interface RowOp {
  op: "test" | "add" | "replace" | "remove";
  path: string;
  value?: Json;
  [member: string]: unknown;
}

/** Reads the model's value at an address now (`undefined` when it has none). */
export type ReadValue = (address: string) => Promise<Json | undefined>;

/** What the person is told when the row of their write changed meanwhile (nothing was written). */
export const ROW_CHANGED = "This row changed meanwhile (another writer): the edit was not saved.";

/**
 * What the person is told when the row of a handler (a row's button, a row field's `onChange`) changed
 * meanwhile: another writer's move, or the person's own Remove above it (its mutations name the row by index).
 */
export const ROW_CHANGED_ACTION = "This row changed meanwhile: its action did not run.";

const pathsOf = (addresses: string[]) => addresses.map((a) => pathOrNull(a)).filter((p) => p !== null);

/** The outermost section list row of a tree holding `path` (or being it). */
function rowAt(components: Json | undefined, path: Path): EvaluatedComponent | undefined {
  for (const c of Array.isArray(components) ? components as unknown as EvaluatedComponent[] : []) {
    const rows = c.type === "sectionList" ? childrenOf(c) : [];
    const row = rows.find((r) => {
      const at = typeof r.bind === "string" ? pathOrNull(r.bind) : null;
      return at !== null && isPrefixOf(at, path);
    });
    const found = row ?? rowAt(c.components, path);
    if (found) return found;
  }
  return undefined;
}

/** A row holding `path`: its own path and what it shows (by path). */
interface Row {
  at: Path;
  shown: [Path, Json | undefined][];
}

function shownRow(components: Json | undefined, path: Path): Row | null {
  const row = rowAt(components, path);
  const at = row && pathOrNull(String(row.bind));
  if (!row || !at) return null;
  const shown = [...boundValues(row.components)].flatMap(([address, value]) => {
    const p = pathOrNull(address);
    // A row's field may show a value outside the row (a currency for all rows): it says nothing of the row.
    return p && isPrefixOf(at, p) ? [[p, value] as [Path, Json | undefined]] : [];
  });
  return { at, shown };
}

/** The `test`s of the values `row` shows, but those at or around `skip` (and those shown empty). */
const shownTests = (row: Row, skip: Path[]): RowOp[] =>
  row.shown.flatMap(([p, value]) =>
    value === undefined || skip.some((m) => pathsOverlap(m, p))
      ? []
      : [{ op: "test" as const, path: pathToPointer(p), value }]
  );

/** The `test`s that `value` is at `path`: whole, but for what `skip` names in it (each other member is tested). */
function testsOf(path: Path, value: Json, skip: Path[]): RowOp[] {
  if (skip.some((s) => isPrefixOf(s, path))) return [];
  if (!skip.some((s) => isPrefixOf(path, s)) || !isObject(value) && !Array.isArray(value)) {
    return [{ op: "test", path: pathToPointer(path), value }];
  }
  const members: [string | number, Json][] = Array.isArray(value)
    ? [...value.entries()]
    : Object.entries(value);
  return members.flatMap(([key, member]) => testsOf([...path, key], member, skip));
}

/** The model's refusal of a row that no longer shows what it showed, as a failed `test` of it. */
const rowChanged = (row: Path) =>
  new ServiceError("conflict", `The row at ${pathToPointer(row)} changed: Test operation failed`);

/**
 * `row` read from the model now, when it shows what the element saw (a value shown empty is absent or `null`),
 * but for what `skip` names; otherwise the row changed (a conflict).
 */
async function readRow(row: Row, skip: Path[], read: ReadValue): Promise<Json> {
  const value = await read(formatPath(row.at));
  const agrees = value !== undefined && row.shown.every(([p, seen]) => {
    if (skip.some((s) => pathsOverlap(s, p))) return true;
    const now = getAt(value, p.slice(row.at.length));
    return seen === undefined ? now === undefined || now === null : jsonEqual(now, seen);
  });
  if (!agrees) throw rowChanged(row.at);
  return value!;
}

/**
 * The `test`s that the outermost section list row holding `address` is still the row `components` show: one
 * per value the row shows, but those the patch writes (`own`) and those that may change meanwhile without the
 * row changing (`changing`: derived members, the element's own writes under way). When none is left, the row
 * is read through `read`: it must show what it showed (`own` too), and is tested as read (but `changing`).
 * `null` when `address` is in no row. Fails as a row conflict ({@link isRowConflict}) when the row changed.
 */
async function guardOf(
  components: Json | undefined,
  path: Path,
  own: string[],
  changing: string[],
  read: ReadValue,
  readAnyway = false,
): Promise<{ row: Row; tests: RowOp[]; value?: Json } | null> {
  const row = shownRow(components, path);
  if (!row) return null;
  const skip = pathsOf(changing);
  const tests = shownTests(row, [...pathsOf(own), ...skip]);
  if (tests.length && !readAnyway) return { row, tests };
  const value = await readRow(row, skip, read);
  return { row, tests: testsOf(row.at, value, skip), value };
}

/**
 * `ops` writing at `address` (of the view `components` show), preceded by the tests that its section list row
 * is still the row shown ({@link guardOf}; `own`: the addresses `ops` write); `ops` alone outside the rows.
 */
export async function rowPatch(
  components: Json | undefined,
  address: string,
  ops: RowOp[],
  own: string[],
  changing: string[],
  read: ReadValue,
): Promise<RowOp[]> {
  const path = pathOrNull(address);
  const guard = path && await guardOf(components, path, own, changing, read);
  return [...guard?.tests ?? [], ...ops];
}

/** Whether `node` can take the step `seg` (an array's index up to its length: one past it appends). */
const holds = (node: Json | undefined, seg: string | number) =>
  typeof seg === "number" ? Array.isArray(node) && seg <= node.length : isObject(node);

/**
 * The operation writing `value` at `rel` within the row at `row`, whose value is `current`: as a mutation
 * does, it creates the containers missing on the way (an array for an index, else an object), in place of a
 * value that is none; `null` when it would create an array with a hole. `next`: the row's value once written.
 */
function writeOp(row: Path, current: Json, rel: Path, value: Json): { op: RowOp; next: Json } | null {
  let depth = 0;
  let parent: Json | undefined;
  for (let node: Json | undefined = current; depth < rel.length && holds(node, rel[depth]); depth++) {
    parent = node;
    node = getAt(node, [rel[depth]]);
  }
  let built = value;
  for (const seg of rel.slice(depth).reverse()) {
    if (typeof seg === "number" && seg !== 0) return null;
    built = typeof seg === "number" ? [built] : { [seg]: built };
  }
  const at = rel[depth - 1];
  const exists = depth === 0 || (Array.isArray(parent) && typeof at === "number" && at < parent.length);
  return {
    op: {
      op: exists ? "replace" : "add",
      path: pathToPointer([...row, ...rel.slice(0, depth)]),
      value: built,
    },
    next: put(current, rel.slice(0, depth), built),
  };
}

/** `node` with `value` at `path` (whose containers `node` holds), copied along the way. */
function put(node: Json, path: Path, value: Json): Json {
  if (!path.length) return value;
  const [seg, ...rest] = path;
  const member = put(getAt(node, [seg]) as Json, rest, value);
  if (Array.isArray(node)) {
    // One past the end appends (what `holds` lets a write step to).
    const items = [...node];
    items[seg as number] = member;
    return items;
  }
  const copy = { ...node as Record<string, Json> };
  // A member named `__proto__` is a member (setMember: an assignment would set the prototype).
  setMember(copy, String(seg), member);
  return copy;
}

/** Whether the container `path` is written in, below `row`, exists once the row's tests pass. */
const known = (row: Row, path: Path) => {
  const parent = path.slice(0, -1);
  // The row exists; a container below it, when it holds a value the row shows.
  return path.length > row.at.length &&
    (parent.length === row.at.length || row.shown.some(([p, v]) => v !== undefined && isPrefixOf(parent, p)));
};

/**
 * The `writes` (address, value, in order) into one row as one patch testing that row first ({@link guardOf},
 * the addresses written its own); `null` when one of them is outside the first one's row, or cannot go as a
 * patch (it would create an array with a hole): they then go as a mutation. A container below the row that the
 * row shows no value in may be missing: the row is read to know.
 */
export async function rowWrites(
  components: Json | undefined,
  writes: [string, Json][],
  changing: string[],
  read: ReadValue,
): Promise<RowOp[] | null> {
  const paths = writes.map(([address]) => pathOrNull(address));
  const row = paths[0] && shownRow(components, paths[0]);
  if (!row || !paths.every((p) => p && isPrefixOf(row.at, p))) return null;
  const own = writes.map(([address]) => address);
  const readAnyway = !paths.every((p) => known(row, p!));
  const guard = await guardOf(components, paths[0]!, own, changing, read, readAnyway);
  if (!guard) return null;
  const ops: RowOp[] = [];
  let current = guard.value;
  for (const [i, path] of paths.entries()) {
    const [p, value] = [path!, writes[i][1]];
    if (current !== undefined) {
      // Each write sees the containers the ones before it created.
      const write = writeOp(row.at, current, p.slice(row.at.length), value);
      if (!write) return null;
      [current, ops[i]] = [write.next, write.op];
      continue;
    }
    // An array element shown is replaced (`add` would insert before it); an object member is set either way.
    const exists = row.shown.some(([s, v]) => v !== undefined && s.length === p.length && isPrefixOf(s, p));
    ops[i] = {
      op: exists && typeof p.at(-1) === "number" ? "replace" : "add",
      path: pathToPointer(p),
      value,
    };
  }
  return [...guard.tests, ...ops];
}

/** The address of the outermost section list row of `components` holding `address` (`undefined`: none). */
export function rowOf(components: Json | undefined, address: string): string | undefined {
  const path = pathOrNull(address);
  const row = path ? rowAt(components, path) : undefined;
  return typeof row?.bind === "string" ? row.bind : undefined;
}

/** A {@link ReadValue} of model `id` through `invoker`. */
export function readerOf(invoker: Invoker, id: string): ReadValue {
  return async (path) => {
    try {
      return await invoker.invoke(operations.getField, { id, path });
    } catch (err) {
      if (err instanceof ServiceError && err.kind === "not_found") return undefined;
      throw err;
    }
  };
}

/** Whether `err` is the model's refusal of a patch whose row test failed (the row changed meanwhile). */
export function isRowConflict(err: unknown): boolean {
  return err instanceof ServiceError && err.kind === "conflict" &&
    err.message.includes("Test operation failed");
}
