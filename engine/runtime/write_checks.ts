/**
 * The checks of a write before anything is applied: a mutation key is a
 * concrete canonical address, array indices stay under
 * `svc.limits.max-array-index`, and a written value (or a removal) must pass
 * every rule at its path — not a derived target, no container mismatch on the
 * way, the static schema (`required`, `readOnly` unless the effect machinery
 * writes: a fold-back, a status document; every keyword), a null-filled gap the
 * schema allows, and the live meta values (`minimum`, `pattern`, `required`, …)
 * at and below the path.
 *
 * @module
 */
import type { EngineConfig } from "../config.ts";
import { type SchemaViolation, unprocessable } from "../errors.ts";
import { LruCache } from "../expr/lru.ts";
import { testPattern } from "../expr/regex.ts";
import { DocumentDraft, getAt, memberAt } from "../json/document.ts";
import { formatPath, parsePath, type Segment, WILDCARD } from "../json/path.ts";
import { cloneJson, isContainer, isObject, type Json, jsonEqual, setMember } from "../json/value.ts";
import { metaPropertyName } from "../model/types.ts";
import type { CycleState } from "./cycle_state.ts";
import { tracedResult } from "./traces.ts";

const ENFORCED_META = ["minimum", "maximum", "multiple_of", "min_length", "max_length", "pattern", "enum"];

/** A mutation key parsed: its path and its canonical address (`$['a']` as `$.a`). */
export interface WriteKey {
  path: readonly Segment[];
  address: string;
}

/**
 * Mutation keys parsed before, with their canonical addresses: clients write
 * the same addresses again and again. The keys are the clients' own, so the
 * cache is bounded in entries and holds short keys only.
 */
const parsedKeys = new LruCache<string, WriteKey>(1024);
const CACHED_KEY_LENGTH = 256;

/** Parses a mutation key (canonical address, no wildcard); the answer is shared, not to be changed. */
export function writeKey(key: string): WriteKey {
  const known = parsedKeys.get(key);
  if (known) return known;
  const parsed = parsePath(key);
  if (!parsed.ok) throw unprocessable(`Invalid mutation path: ${parsed.message}`);
  if (parsed.path.includes(WILDCARD)) {
    throw unprocessable(`Invalid mutation path '${key}': a write needs a concrete address, not [*]`);
  }
  const parsedKey = { path: parsed.path, address: formatPath(parsed.path) };
  if (key.length <= CACHED_KEY_LENGTH) parsedKeys.set(key, parsedKey);
  return parsedKey;
}

/**
 * A copy of `mutations` keyed by canonical addresses (`$['a']` as `$.a`), in their order: the service
 * keeps it as the write's request, so nothing of the caller's is shared (values are copied too).
 */
export function canonicalWrites(mutations: Record<string, Json>): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const key in mutations) setMember(out, writeKey(key).address, cloneJson(mutations[key]));
  return out;
}

/** Refuses an array index above `svc.limits.max-array-index` before anything is allocated. */
export function checkIndexLimit(config: EngineConfig, path: readonly Segment[]): void {
  for (const seg of path) {
    if (typeof seg === "number" && seg > config.maxArrayIndex) {
      throw unprocessable(
        `Array index ${seg} in ${
          formatPath(path)
        } exceeds svc.limits.max-array-index (${config.maxArrayIndex})`,
      );
    }
  }
}

/**
 * Every reason a write (or, with `value` undefined, a removal) at `path` is
 * refused: derived target, container mismatch, static schema, live metas.
 * `address`: the formatted path, when the caller has it. `system`: the effect
 * machinery writes (a fold-back, a status document), which read-only does not stop.
 */
export function checkWrite(
  state: CycleState,
  path: readonly Segment[],
  value: Json | undefined,
  address: string = formatPath(path),
  system: boolean = state.source === "foldback",
): SchemaViolation[] {
  const derived = state.derivedAt(path);
  if (derived) {
    return [{
      path: address,
      keyword: "readOnly",
      message: `is computed by the derivation ${derived.key}`,
    }];
  }
  // The document is always an object (a snapshot of anything else could not be restored).
  if (path.length === 0 && !isObject(value)) {
    const removed = value === undefined;
    return [{
      path: address,
      keyword: removed ? "required" : "type",
      message: removed
        ? "is the document root and cannot be removed"
        : "must be object: the document root is always an object",
    }];
  }
  const violations: SchemaViolation[] = [];
  let cur: Json | undefined = state.draft.root;
  let depth = 0;
  for (; depth < path.length && cur !== undefined && cur !== null; depth++) {
    const seg = path[depth];
    if (typeof seg === "number" ? !Array.isArray(cur) : !isObject(cur)) {
      const holds = Array.isArray(cur) ? "an array" : `a ${typeof cur}`;
      return [{
        path: formatPath(path.slice(0, depth)),
        keyword: "type",
        message: `holds ${holds}: cannot write ${address} under it`,
      }];
    }
    cur = memberAt(cur, seg);
  }
  // The containers the write creates on its way (from the first one missing, or null) must be of a kind
  // their schema allows: `$.list.b` makes `list` an object.
  if (value !== undefined) {
    for (let at = depth; at < path.length; at++) {
      const made = state.model.schema.containerViolation(path.slice(0, at), path[at], address);
      if (made) return [made];
    }
  }
  const schema = state.model.schema;
  // Most models have no meta values: no key is built to find none.
  const metaOf = (addr: string, key: string) =>
    state.meta.size ? state.meta.get(`${addr}#${key}`) : undefined;
  // What the walk above reached is what is at `path` now (nothing, when it stopped short).
  const old = depth === path.length ? cur : undefined;
  const readOnly = system ? [] : readOnlyViolations(state, path, value, old, address, metaOf);
  if (value === undefined || value === null) {
    if (metaOf(address, "required") === true) {
      violations.push({ path: address, keyword: "required", message: "is required and cannot be cleared" });
    } else if (value === undefined && schema.isStaticallyRequired(path)) {
      violations.push({
        path: address,
        keyword: "required",
        message: "is required by the schema and cannot be removed",
      });
    }
    if (value === undefined) return [...violations, ...readOnly];
  }
  violations.push(...readOnly, ...schema.validateAt(path, value));
  const gap = gapBefore(state, path);
  if (gap) {
    for (const v of schema.validateAt(gap, null)) {
      const message = `${v.message} (writing ${address} would fill ${v.path} with null)`;
      violations.push({ ...v, message });
    }
  }
  violations.push(...checkMetaOverlay(state, path, value, address));
  return violations;
}

/**
 * Why a caller may not write `value` at `path` (or remove what is there) for
 * read-only reasons: the place or a container above it is read-only, else the
 * write would change read-only members.
 */
function readOnlyViolations(
  state: CycleState,
  path: readonly Segment[],
  value: Json | undefined,
  old: Json | undefined,
  address: string,
  metaOf: (address: string, key: string) => Json | undefined,
): SchemaViolation[] {
  const live = state.meta.size > 0 && hasReadOnlyMetas(state);
  const own = readOnlyViolation(state, path, address, live, metaOf);
  return own ? [own] : readOnlyMembersChanged(state, path, value, old, live, metaOf);
}

/**
 * Why `path` is read-only for a caller, if it is: its own static or live
 * `readOnly`, or that of a container enclosing it (a read-only object's
 * members are read-only too). Containers are only walked when the schema has
 * a read-only node that can hold members, or the model a live `readOnly`.
 */
function readOnlyViolation(
  state: CycleState,
  path: readonly Segment[],
  address: string,
  live: boolean,
  metaOf: (address: string, key: string) => Json | undefined,
): SchemaViolation | null {
  const schema = state.model.schema;
  if (schema.fragmentAt(path).readOnly === true || metaOf(address, "read_only") === true) {
    return { path: address, keyword: "readOnly", message: "is read-only" };
  }
  if (!live && !schema.hasReadOnlyContainers) return null;
  for (let depth = path.length - 1; depth >= 0; depth--) {
    const container = path.slice(0, depth);
    const at = formatPath(container);
    if (
      (schema.hasReadOnlyContainers && schema.fragmentAt(container).readOnly === true) ||
      (live && metaOf(at, "read_only") === true)
    ) {
      return { path: address, keyword: "readOnly", message: `is inside ${at}, which is read-only` };
    }
  }
  return null;
}

/**
 * The read-only members (static or live, not derived: a derivation computes
 * those again) that writing `value` at `path` in place of what is there would
 * change, add or drop: a container written whole must leave them as they are.
 * Walks the old and new values together, only where one of them is a container.
 */
function readOnlyMembersChanged(
  state: CycleState,
  path: readonly Segment[],
  value: Json | undefined,
  old: Json | undefined,
  live: boolean,
  metaOf: (address: string, key: string) => Json | undefined,
): SchemaViolation[] {
  const schema = state.model.schema;
  if (!live && !schema.hasReadOnly) return [];
  if (!isContainer(old) && !isContainer(value)) return [];
  const violations: SchemaViolation[] = [];
  const walk = (at: Segment[], before: Json | undefined, after: Json | undefined) => {
    for (const key of memberKeys(before, after)) {
      const member = [...at, key];
      const was = memberAt(before, key);
      const is = memberAt(after, key);
      if (state.derivedAt(member)) continue;
      const address = formatPath(member);
      if (schema.fragmentAt(member).readOnly === true || (live && metaOf(address, "read_only") === true)) {
        if (!jsonEqual(was, is)) {
          violations.push({
            path: address,
            keyword: "readOnly",
            message: "is read-only: the write would change it",
          });
        }
      } else if (isContainer(was) || isContainer(is)) walk(member, was, is);
    }
  };
  walk([...path], old, value);
  return violations;
}

/** The member keys of either value (array indices as numbers). */
function memberKeys(a: Json | undefined, b: Json | undefined): Segment[] {
  const keys = new Set<Segment>();
  for (const value of [a, b]) {
    if (Array.isArray(value)) { for (let i = 0; i < value.length; i++) keys.add(i); }
    else if (isObject(value)) { for (const key of Object.keys(value)) keys.add(key); }
  }
  return [...keys];
}

/** Whether a model has a live `readOnly` (a meta derivation of it), asked once per model. */
const readOnlyMetas = new WeakMap<CycleState["model"], boolean>();

function hasReadOnlyMetas(state: CycleState): boolean {
  let live = readOnlyMetas.get(state.model);
  if (live === undefined) {
    readOnlyMetas.set(state.model, live = state.model.graph.metas.some((m) => m.metaKey === "read_only"));
  }
  return live;
}

/**
 * What the writes broke of the containers enclosing them, judged as wholes in
 * the document as the writes left it (`maxItems`, `uniqueItems`, `if`/`then`,
 * a whole-object `enum`, …): a write of `$.tags[3]` checks `tags`, which the
 * value at `$.tags[3]` alone cannot show. Only what the container did not
 * already break counts; each container is checked once.
 */
export function checkEnclosing(
  state: Pick<CycleState, "model" | "draft" | "base">,
  written: readonly (readonly Segment[])[],
): SchemaViolation[] {
  const schema = state.model.schema;
  if (!schema.hasEnclosingKeywords) return [];
  const violations: SchemaViolation[] = [];
  const checked = new Set<string>();
  for (const path of written) {
    for (let depth = path.length - 1; depth >= 0; depth--) {
      const container = path.slice(0, depth);
      const value = state.draft.get(container);
      if (value === undefined) continue;
      const key = formatPath(container);
      if (checked.has(key)) continue;
      checked.add(key);
      violations.push(...schema.enclosingViolations(container, getAt(state.base, container), value));
    }
  }
  return violations;
}

/**
 * Why the model refuses a status document the cycle itself would write at
 * `path` (an effect firing or blocked): every rule of a write but read-only
 * (the field is the effect's), and what it newly breaks of the containers
 * enclosing it, judged on a trial copy so the draft is left as it is.
 */
export function checkStatusWrite(
  state: CycleState,
  path: readonly Segment[],
  value: Json,
): SchemaViolation[] {
  const violations = checkWrite(state, path, value, formatPath(path), true);
  if (violations.length || !state.model.schema.hasEnclosingKeywords) return violations;
  const trial = new DocumentDraft(state.draft.root);
  trial.set(path, value);
  return checkEnclosing({ model: state.model, draft: trial, base: state.draft.root }, [path]);
}

/** The first array slot a write at `path` would pad with null (an index past the end), if any. */
function gapBefore(state: CycleState, path: readonly Segment[]): Segment[] | null {
  let cur: Json | undefined = state.draft.root;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    const length = Array.isArray(cur) ? cur.length : 0;
    if (typeof seg === "number" && seg > length) return [...path.slice(0, i), length];
    cur = memberAt(cur, seg);
  }
  return null;
}

/**
 * A live limit as a message quotes it: cut as a trace's result is, since a
 * meta derivation's pattern or enum is bounded by no spec limit.
 */
function shown(limit: Json): string {
  const cut = tracedResult(limit);
  return typeof cut === "string" ? cut : JSON.stringify(cut);
}

/** Live meta values (minimum, pattern, …) at `path` and below, checked against `value`. */
export function checkMetaOverlay(
  state: Pick<CycleState, "meta" | "model">,
  path: readonly Segment[],
  value: Json,
  address: string,
): SchemaViolation[] {
  const meta = state.meta;
  if (meta.size === 0) return [];
  const out: SchemaViolation[] = [];
  const checkOne = (addr: string, key: string, limit: Json, v: Json | undefined) => {
    if (v === undefined || v === null || limit === null || limit === undefined) return;
    const fail = (message: string) => out.push({ path: addr, keyword: metaPropertyName(key), message });
    switch (key) {
      case "minimum":
        if (typeof v === "number" && typeof limit === "number" && v < limit) fail(`must be >= ${limit}`);
        break;
      case "maximum":
        if (typeof v === "number" && typeof limit === "number" && v > limit) fail(`must be <= ${limit}`);
        break;
      case "multiple_of":
        if (typeof v === "number" && typeof limit === "number" && limit > 0) {
          const q = v / limit;
          if (Math.abs(Math.round(q) - q) > 1e-9) fail(`must be multiple of ${limit}`);
        }
        break;
      case "min_length":
        if (typeof v === "string" && typeof limit === "number" && [...v].length < limit) {
          fail(`must NOT have fewer than ${limit} characters`);
        }
        break;
      case "max_length":
        if (typeof v === "string" && typeof limit === "number" && [...v].length > limit) {
          fail(`must NOT have more than ${limit} characters`);
        }
        break;
      case "pattern":
        if (typeof v === "string" && typeof limit === "string") {
          try {
            if (!testPattern(limit, v, state.model.schema.regexLimits)) {
              fail(`must match pattern "${shown(limit)}"`);
            }
          } catch (err) {
            // A stored pattern compiles (meta_values.ts); the input's length or the time is over a limit.
            fail((err as Error).message);
          }
        }
        break;
      case "enum":
        if (Array.isArray(limit) && !limit.some((allowed) => jsonEqual(allowed, v))) {
          fail(`must be equal to one of the allowed values: ${shown(limit)}`);
        }
        break;
    }
  };
  if (!isContainer(value)) {
    for (const key of ENFORCED_META) {
      const limit = meta.get(`${address}#${key}`);
      if (limit !== undefined) checkOne(address, key, limit, value);
    }
    return out;
  }
  for (const [metaKey, limit] of meta) {
    const hash = metaKey.lastIndexOf("#");
    const addr = metaKey.slice(0, hash);
    const key = metaKey.slice(hash + 1);
    const required = key === "required" && limit === true;
    if (!required && !ENFORCED_META.includes(key)) continue;
    if (addr !== address && !addr.startsWith(address + ".") && !addr.startsWith(address + "[")) continue;
    const parsed = parsePath(addr);
    if (!parsed.ok) continue;
    const rel = parsed.path.slice(path.length);
    if (!required) {
      checkOne(addr, key, limit, getAt(value, rel));
      continue;
    }
    // A required field may vanish together with its object, not from an object that stays.
    const kept = getAt(value, rel);
    if (rel.length && isObject(getAt(value, rel.slice(0, -1))) && (kept === undefined || kept === null)) {
      out.push({ path: addr, keyword: "required", message: "is required and cannot be cleared" });
    }
  }
  return out;
}
