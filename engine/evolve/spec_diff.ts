/**
 * The SpecEvolution that turns one spec into another, for a host that holds a
 * new spec and a stored model of an older one (the embed's page deploy): an
 * evolution keeps the model's audit trail and effects outbox, where a
 * replacement would start both anew.
 *
 * Not exported from `engine/mod.ts` (the browser bundle's budget): importers
 * take it from this module.
 *
 * @module
 */
import { isObject, jsonEqual, type JsonObject } from "../json/value.ts";
import type { ModelSpec } from "../model/types.ts";
import { applyEvolution } from "./apply.ts";
import { parseEvolution, type SpecEvolution } from "./evolution.ts";
import { KEYED_SECTIONS } from "./keyed.ts";

/** Members of a spec an evolution rewrites wholesale, with the member that does it. */
const WHOLESALE = [
  ["version", "newVersion"],
  ["schema", "newSchema"],
  ["viewDefinition", "newViewDefinition"],
  ["constants", "newConstants"],
  ["tests", "newTests"],
  ["library", "newLibrary"],
] as const;

/** Every member an evolution can change; any other (`id`, `template`, `lineage`, ...) must be equal. */
const EXPRESSIBLE = new Set<string>([
  ...WHOLESALE.map(([member]) => member),
  ...KEYED_SECTIONS.map((s) => s.section),
]);

/**
 * The evolution that makes `from` exactly `to` (compared as JSON, member order
 * aside), or `null` when no evolution can: another member differs, a keyed
 * list is reordered or holds an entry without a key, or the evolution would be
 * refused. Verified by applying it, so a non-null answer is always exact.
 */
export function evolutionBetween(from: ModelSpec, to: ModelSpec): SpecEvolution | null {
  const differs = (member: string) => !jsonEqual(from[member], to[member]);
  const members = new Set([...Object.keys(from), ...Object.keys(to)]);
  if ([...members].some((member) => !EXPRESSIBLE.has(member) && differs(member))) return null;
  const evolution: Record<string, unknown> = {};
  for (const [member, edit] of WHOLESALE) {
    // A wholesale member says what the section becomes; one `to` lacks is written empty (checked below).
    if (differs(member)) {
      evolution[edit] = to[member] ?? (member === "tests" ? [] : member === "constants" ? {} : null);
    }
  }
  for (const { section, upsert, remove, keyOf } of KEYED_SECTIONS) {
    if (!differs(section)) continue;
    const keyed = (list: unknown) =>
      new Map(
        (Array.isArray(list) ? list : []).map((entry) => {
          const key = isObject(entry) ? keyOf(entry) : { error: "" };
          return ["key" in key ? key.key : "", entry as JsonObject];
        }),
      );
    const before = keyed(from[section]);
    const after = keyed(to[section]);
    // Upserts replace in place or append: every changed or new entry, in `to`'s order.
    evolution[upsert] = [...after].filter(([key, entry]) => !jsonEqual(before.get(key), entry)).map(([, e]) =>
      e
    );
    const removes = [...before.keys()].filter((key) => !after.has(key));
    if (removes.length) evolution[remove] = removes;
  }
  try {
    const parsed = parseEvolution(evolution);
    return jsonEqual(applyEvolution(from, parsed), to) ? parsed : null;
  } catch {
    return null;
  }
}
