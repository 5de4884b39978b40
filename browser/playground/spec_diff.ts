/**
 * The SpecEvolution that turns one spec into an edited copy of it, so the
 * playground's "edit the spec and apply" goes through `evolveSpec` like every
 * other client: keyed sections become targeted upserts and removals
 * (derivations and default values by `path`, meta derivations by
 * `path#property`, constraints and effects by `id`); schema, view definition,
 * constants and tests are replaced whole when they differ. `expectedVersion`
 * pins the version the edit started from.
 *
 * @module
 */
import type { Json, ModelSpec, SpecEvolution } from "../../engine/mod.ts";
import { jsonEqual } from "../../engine/json/value.ts";

type Keyed = Record<string, Json>;

/** Upserts and removals of a keyed section. */
function keyedDiff(
  before: Keyed[] | undefined,
  after: Keyed[] | undefined,
  key: (item: Keyed) => string,
): { upsert: Keyed[]; remove: string[] } {
  const old = new Map((before ?? []).map((item) => [key(item), item]));
  const now = new Map((after ?? []).map((item) => [key(item), item]));
  return {
    upsert: [...now].filter(([k, item]) => !jsonEqual(old.get(k), item)).map(([, item]) => item),
    remove: [...old.keys()].filter((k) => !now.has(k)),
  };
}

const SECTIONS = [
  {
    member: "derivations",
    upsert: "upsertDerivations",
    remove: "removeDerivations",
    key: (d: Keyed) => String(d.path),
  },
  {
    member: "constraints",
    upsert: "upsertConstraints",
    remove: "removeConstraints",
    key: (d: Keyed) => String(d.id),
  },
  { member: "effects", upsert: "upsertEffects", remove: "removeEffects", key: (d: Keyed) => String(d.id) },
  {
    member: "metaDerivations",
    upsert: "upsertMetaDerivations",
    remove: "removeMetaDerivations",
    key: (d: Keyed) => `${d.path}#${d.property}`,
  },
  {
    member: "defaultValues",
    upsert: "upsertDefaultValues",
    remove: "removeDefaultValues",
    key: (d: Keyed) => String(d.path),
  },
] as const;

const WHOLE = [
  { member: "schema", as: "newSchema" },
  { member: "viewDefinition", as: "newViewDefinition" },
  { member: "constants", as: "newConstants" },
  { member: "tests", as: "newTests" },
] as const;

/** The evolution from `current` to `edited`; throws when the id changed (that is another model). */
export function evolutionBetween(current: ModelSpec, edited: ModelSpec): SpecEvolution {
  if (edited.id !== current.id) throw new Error(`The id cannot change ('${current.id}' → '${edited.id}')`);
  const out: Record<string, Json> = { expectedVersion: current.version ?? "1.0.0" };
  if ((edited.version ?? "1.0.0") !== (current.version ?? "1.0.0")) {
    out.newVersion = edited.version ?? "1.0.0";
  }
  const a = current as unknown as Record<string, Json>;
  const b = edited as unknown as Record<string, Json>;
  for (const { member, as } of WHOLE) {
    if (!jsonEqual(a[member] ?? null, b[member] ?? null)) {
      out[as] = b[member] ?? (member === "tests" ? [] : member === "constants" ? {} : null);
    }
  }
  for (const section of SECTIONS) {
    const { upsert, remove } = keyedDiff(
      a[section.member] as Keyed[],
      b[section.member] as Keyed[],
      section.key,
    );
    if (upsert.length) out[section.upsert] = upsert;
    if (remove.length) out[section.remove] = remove;
  }
  return out as unknown as SpecEvolution;
}

/** One line per member of an evolution, for people ("upsertDerivations: $.total, $.tax"). */
export function describeEvolution(evolution: SpecEvolution): string[] {
  return Object.entries(evolution).filter(([member]) => member !== "expectedVersion").map(
    ([member, value]) => {
      if (Array.isArray(value)) {
        const names = value.map((v) =>
          typeof v === "string"
            ? v
            : String((v as Keyed).id ?? (v as Keyed).path ?? (v as Keyed).description ?? "…")
        );
        return `${member}: ${names.join(", ")}`;
      }
      return typeof value === "string" ? `${member}: ${value}` : `${member}: replaced`;
    },
  );
}
