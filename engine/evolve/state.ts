/**
 * Carrying a model's state across an evolution: the base document the evolved
 * model is re-derived from.
 *
 * 1. Derived values are dropped: every target of the previous and of the
 *    evolved derivations (the evolved model recomputes its own; those of
 *    removed derivations must not linger as if they were base fields).
 * 2. `backfill` is written where the document has no value (absent or null),
 *    and the containers it creates get their defaults as a write's do;
 *    each target must be a base field of the evolved model, its value valid
 *    under the new schema, and reachable without overwriting a value (a
 *    scalar on the way) or inventing array elements. `[*]` expands over the
 *    existing elements. What the writes add is admitted by the caller (the
 *    state size limit) before any value is copied, and the containers they
 *    land in are judged as a write's are (a container made on the way, the
 *    keywords judging a container whole: `maxProperties`, `uniqueItems`,
 *    `if`/`then`, …), whether or not the schema changed.
 * 3. When the schema changed, the state-compatibility guard: the carried
 *    document is validated against the new schema with every `required` (and
 *    `dependentRequired`) removed, because mutations never enforce
 *    completeness; any other violation is a value the new schema would strand
 *    (a path it forbids, a type or keyword it no longer admits), and the
 *    evolution is refused listing every such path.
 *
 * @module
 */
import { describeViolations, type Finding, type SchemaViolation } from "../errors.ts";
import { type CreatedContainers, DocumentDraft, expandPattern, getAt, memberAt } from "../json/document.ts";
import { jsonBytes } from "../json/measure.ts";
import { cloneJson, isObject, type Json, jsonEqual } from "../json/value.ts";
import type { CompiledModel } from "../model/compile.ts";
import { formatPath, hasWildcard, parsePath, type Segment } from "../json/path.ts";
import { targetHolding } from "../model/target_index.ts";
import { strandedValues } from "../model/stranded_values.ts";
import { checkEnclosing } from "../runtime/write_checks.ts";
import { evolutionRefused, stateStranded } from "./refusals.ts";

/** Why a backfill target cannot be written without clobbering data, or null. */
function blockedAt(doc: Json, path: readonly Segment[]): string | null {
  let cur: Json | undefined = doc;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (cur === undefined || cur === null) {
      if (typeof seg === "number") {
        return `${formatPath(path.slice(0, i + 1))} does not exist: backfill does not create array elements`;
      }
      cur = undefined;
      continue;
    }
    const fits = typeof seg === "number" ? Array.isArray(cur) && seg < cur.length : isObject(cur);
    if (!fits) {
      if (Array.isArray(cur) && typeof seg === "number") {
        return `${formatPath(path.slice(0, i + 1))} does not exist: backfill does not create array elements`;
      }
      const holds = Array.isArray(cur) ? "an array" : `a ${typeof cur}`;
      return `${formatPath(path.slice(0, i))} holds ${holds}: cannot write ${formatPath(path)} under it`;
    }
    cur = memberAt(cur, seg);
  }
  return null;
}

/**
 * Writes `backfill` into `draft` (fresh over the carried document, which stays
 * as it was), reporting the containers it creates in `created`. `admitGrowth` is told the bytes the writes will have added so
 * far before each entry's copies are made, and throws to refuse them.
 */
function writeBackfill(
  draft: DocumentDraft,
  next: CompiledModel,
  backfill: Record<string, Json>,
  admitGrowth: (bytes: number) => void,
  created: CreatedContainers,
): Finding[] {
  const findings: Finding[] = [];
  const base = draft.root;
  const written = new Map<string, Segment[][]>();
  let growth = 0;
  for (const [address, value] of Object.entries(backfill)) {
    const location = `backfill['${address}']`;
    const fail = (message: string) => findings.push({ location, message });
    const parsed = parsePath(address);
    if (!parsed.ok) {
      fail(parsed.message);
      continue;
    }
    const pattern = parsed.path;
    if (pattern.length === 0) {
      fail("the document root cannot be backfilled");
      continue;
    }
    const derived = targetHolding(next.derivedTargets, pattern);
    if (derived) {
      fail(`is computed by the derivation ${derived.key}: backfill writes base fields only`);
      continue;
    }
    const violations = next.schema.validateAt(pattern, value);
    if (violations.length) {
      fail(`violates the new schema: ${describeViolations(violations)}`);
      continue;
    }
    const targets = hasWildcard(pattern) ? expandPattern(draft.root, pattern) : [pattern];
    const fill: Segment[][] = [];
    for (const target of targets) {
      const blocked = blockedAt(draft.root, target);
      if (blocked) fail(blocked);
      else if ((getAt(draft.root, target) ?? null) === null) fill.push(target);
    }
    // Each target gets its own copy: a small value over `[*]` of many elements is refused before any is made.
    const bytes = jsonBytes(value);
    for (const target of fill) growth += bytes + draft.placeGrowth(target);
    if (fill.length) admitGrowth(growth);
    for (const target of fill) draft.set(target, cloneJson(value), created);
    written.set(location, fill);
  }
  for (const [location, paths] of written) {
    const broken = brokenAround(next, base, draft, paths);
    if (broken.length) {
      findings.push({ location, message: `violates the new schema: ${describeViolations(broken)}` });
    }
  }
  return findings;
}

/**
 * What writes at `paths` broke beyond their own values, judged as a write's are:
 * a container made on the way that its schema gives another type (`$.list.b`
 * makes `list` an object), and what the enclosing containers newly break of the
 * keywords judging them whole (`maxProperties`, `uniqueItems`, `if`/`then`, …).
 */
function brokenAround(
  next: CompiledModel,
  base: Json,
  draft: DocumentDraft,
  paths: Segment[][],
): SchemaViolation[] {
  const violations: SchemaViolation[] = [];
  for (const path of paths) {
    for (let at = 1; at < path.length; at++) {
      if ((getAt(base, path.slice(0, at)) ?? null) !== null) continue;
      const made = next.schema.containerViolation(path.slice(0, at), path[at], formatPath(path));
      if (made) {
        violations.push(made);
        break;
      }
    }
  }
  violations.push(...checkEnclosing({ model: next, draft, base }, paths));
  return violations;
}

/**
 * The base document `previous`'s state `doc` carries into the evolved model
 * `next`: derived values dropped, `backfill` written, stranding refused (422).
 * `admitGrowth` is told the JSON bytes the base document will have grown by
 * (the dropped values counting against the backfill) before each backfill
 * entry's copies are made, and throws to refuse them. The containers the
 * backfill creates are reported in `created`, for their defaults. Of
 * `previous` only the schema and the derivation targets are read, so a spec
 * that no longer compiles (a stored model being repaired) can stand in for
 * its model.
 */
export function carryForward(
  previous: Pick<CompiledModel, "spec"> & { derivedTargets: readonly { target: Segment[] }[] },
  next: CompiledModel,
  doc: Json,
  backfill: Record<string, Json> = {},
  admitGrowth: (bytes: number) => void = () => {},
  created: CreatedContainers = [],
): Json {
  const carried = new DocumentDraft(doc);
  for (const { target } of [...previous.derivedTargets, ...next.derivedTargets]) {
    for (const path of expandPattern(carried.root, target)) carried.delete(path);
  }
  // A draft of its own: what the backfill broke is judged against the carried document as it was.
  const draft = new DocumentDraft(carried.root);
  // The dropped derived values count: what is admitted is the size of the base document the backfill grows.
  const findings = writeBackfill(
    draft,
    next,
    backfill,
    (bytes) => admitGrowth(carried.growth + bytes),
    created,
  );
  if (findings.length) throw evolutionRefused(findings);
  if (!jsonEqual(previous.spec.schema, next.spec.schema)) {
    const stranded = strandedValues(next, draft.root);
    if (stranded.length) throw stateStranded(stranded);
  }
  return draft.root;
}
