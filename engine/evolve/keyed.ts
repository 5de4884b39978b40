/**
 * The list sections of a spec edited by upsert/remove pairs, each matched by a
 * key: derivations and default rules by `path`, constraints and effects by
 * `id`, meta derivations by `path#property`. Addresses are compared in
 * canonical form, meta properties in their snake_case key form, so `$['a']`
 * matches `$.a` and `#readOnly` matches `#read_only`.
 *
 * @module
 */
import type { Finding } from "../errors.ts";
import { isObject, type JsonObject } from "../json/value.ts";
import { didYouMean } from "../nearest.ts";
import { formatPath, parsePath } from "../json/path.ts";
import { META_KEYS, META_PROPERTIES, metaKeyName, type ModelSpec } from "../model/types.ts";
import type { SpecEvolution } from "./evolution.ts";

/** A key, or why a value has none. */
type Keyed = { key: string } | { error: string };

/** One keyed list section and the evolution members that edit it. */
interface KeyedSection {
  section: "derivations" | "constraints" | "effects" | "metaDerivations" | "defaultValues";
  upsert: keyof SpecEvolution;
  remove: keyof SpecEvolution;
  /** What an entry is called in messages. */
  noun: string;
  /** The key of a list entry. */
  keyOf(entry: JsonObject): Keyed;
  /** The key named in a remove list, in the form {@link keyOf} produces. */
  parseKey(text: string): Keyed;
}

function canonicalAddress(text: unknown): Keyed {
  const parsed = parsePath(text);
  return parsed.ok ? { key: formatPath(parsed.path) } : { error: parsed.message };
}

function metaKey(path: unknown, property: unknown): Keyed {
  const address = canonicalAddress(path);
  if ("error" in address) return address;
  const name = typeof property === "string" ? metaKeyName(property) : "";
  if (!META_KEYS.includes(name)) {
    return { error: `'${property}' is not a meta property (one of ${META_PROPERTIES.join(", ")})` };
  }
  return { key: `${address.key}#${name}` };
}

function identifier(value: unknown): Keyed {
  return typeof value === "string" && value !== ""
    ? { key: value }
    : { error: "an id must be a non-empty string" };
}

const byPath = (entry: JsonObject) => canonicalAddress(entry.path);
const byId = (entry: JsonObject) => identifier(entry.id);

/** Every keyed section. */
export const KEYED_SECTIONS: readonly KeyedSection[] = [
  {
    section: "derivations",
    upsert: "upsertDerivations",
    remove: "removeDerivations",
    noun: "derivation",
    keyOf: byPath,
    parseKey: canonicalAddress,
  },
  {
    section: "constraints",
    upsert: "upsertConstraints",
    remove: "removeConstraints",
    noun: "constraint",
    keyOf: byId,
    parseKey: identifier,
  },
  {
    section: "effects",
    upsert: "upsertEffects",
    remove: "removeEffects",
    noun: "effect",
    keyOf: byId,
    parseKey: identifier,
  },
  {
    section: "metaDerivations",
    upsert: "upsertMetaDerivations",
    remove: "removeMetaDerivations",
    noun: "meta derivation",
    keyOf: (entry) => metaKey(entry.path, entry.property),
    parseKey: (text) => {
      const hash = text.lastIndexOf("#");
      if (hash < 0) return { error: `'${text}' is not a meta key: write it as 'path#property'` };
      return metaKey(text.slice(0, hash), text.slice(hash + 1));
    },
  },
  {
    section: "defaultValues",
    upsert: "upsertDefaultValues",
    remove: "removeDefaultValues",
    noun: "default rule",
    keyOf: byPath,
    parseKey: canonicalAddress,
  },
];

/**
 * Applies one section's upserts (replace in place by key, else append) and
 * removals (each must name an existing entry) to `spec`, in place. A key both
 * upserted and removed, or listed twice, is a finding.
 */
export function editKeyedSection(
  spec: ModelSpec,
  evolution: SpecEvolution,
  { section, upsert, remove, noun, keyOf, parseKey }: KeyedSection,
  findings: Finding[],
): void {
  const upserts = evolution[upsert] as JsonObject[] | undefined;
  const removes = evolution[remove] as string[] | undefined;
  if (upserts === undefined && removes === undefined) return;
  const current = spec[section];
  const entries: JsonObject[] = Array.isArray(current) ? [...current] as unknown as JsonObject[] : [];
  const keys = entries.map((entry) => isObject(entry) ? keyOf(entry) : { error: "" })
    .map((k) => "key" in k ? k.key : null);

  const removed = new Set<string>();
  (removes ?? []).forEach((text, i) => {
    const location = `${remove}[${i}]`;
    const parsed = parseKey(text);
    if ("error" in parsed) return findings.push({ location, message: parsed.error });
    if (removed.has(parsed.key)) return findings.push({ location, message: `${parsed.key} is listed twice` });
    removed.add(parsed.key);
    if (!keys.includes(parsed.key)) {
      findings.push({
        location,
        message: `there is no ${noun} ${parsed.key}` + didYouMean(parsed.key, keys.filter((k) => k !== null)),
      });
    }
  });

  const upserted = new Set<string>();
  (upserts ?? []).forEach((entry, i) => {
    const location = `${upsert}[${i}]`;
    const parsed = keyOf(entry);
    if ("error" in parsed) return findings.push({ location, message: parsed.error });
    if (upserted.has(parsed.key)) {
      return findings.push({ location, message: `${parsed.key} is upserted twice` });
    }
    if (removed.has(parsed.key)) {
      return findings.push({ location, message: `${parsed.key} is both upserted and removed (${remove})` });
    }
    upserted.add(parsed.key);
    const index = keys.indexOf(parsed.key);
    if (index >= 0) entries[index] = entry;
    else {
      entries.push(entry);
      keys.push(parsed.key);
    }
  });

  (spec as Record<string, unknown>)[section] = entries.filter((_, i) => !removed.has(keys[i] ?? ""));
}
