/**
 * Applies a SpecEvolution to a ModelSpec, producing the evolved spec (SPEC.md
 * "SpecEvolution"). Pure: the input spec and evolution are never modified, and
 * the result shares nothing with them.
 *
 * Every reason the evolution cannot apply (a removal naming nothing, a key both
 * upserted and removed, a still-referenced definition or constant, a schema
 * path through a `$ref`, a library export still used, ...) is collected and thrown once as a 422. Whether
 * the evolved spec itself is valid is for the compiler to decide; `backfill`
 * and `expectedVersion` concern state and are the service's.
 *
 * @module
 */
import type { Finding } from "../errors.ts";
import { cloneJson, isObject, jsonEqual } from "../json/value.ts";
import type { ModelSpec } from "../model/types.ts";
import { checkDroppedConstants, editConstants } from "./constant_edits.ts";
import type { SpecEvolution } from "./evolution.ts";
import { evolutionRefused } from "./refusals.ts";
import { editKeyedSection, KEYED_SECTIONS } from "./keyed.ts";
import { checkDroppedExports, editLibrary } from "./library_edits.ts";
import { editSchema } from "./schema_edits.ts";
import { editViews } from "./view_edits.ts";

/**
 * The spec `spec` becomes under `evolution` (already shape-checked by
 * `parseEvolution`); throws a 422 listing every reason it cannot apply.
 */
export function applyEvolution(spec: ModelSpec, evolution: SpecEvolution): ModelSpec {
  const next = cloneJson(spec);
  const edits = cloneJson(evolution);
  const findings: Finding[] = [];

  if (edits.newVersion !== undefined) next.version = edits.newVersion;

  if (edits.newSchema !== undefined) next.schema = edits.newSchema;
  else if (isObject(next.schema)) editSchema(next.schema, edits, findings);

  for (const section of KEYED_SECTIONS) editKeyedSection(next, edits, section, findings);

  if (edits.newViewDefinition !== undefined) next.viewDefinition = edits.newViewDefinition;
  else editViews(next, edits, findings);

  const droppedConstants = editConstants(next, edits, findings);
  const droppedExports = editLibrary(next, edits);

  if (edits.newTests !== undefined) next.tests = edits.newTests;

  findings.push(...checkDroppedConstants(next, droppedConstants));
  findings.push(...checkDroppedExports(next, droppedExports));
  if (findings.length) throw evolutionRefused(findings);
  return next;
}

/** Ids of the effects `next` adds or whose definition differs from `previous`. */
export function changedEffectIds(previous: ModelSpec, next: ModelSpec): Set<string> {
  const before = new Map((previous.effects ?? []).map((effect) => [effect.id, effect]));
  return new Set(
    (next.effects ?? []).filter((effect) => !jsonEqual(before.get(effect.id), effect)).map((e) => e.id),
  );
}
