/**
 * The constants section of an evolution (`newConstants`, `upsertConstants`,
 * `removeConstants`) and the reference guard: a constant may not go while an
 * expression of the evolved spec still mentions `$const.<name>` (a textual
 * scan; dynamic access such as `$const[name]` is not detected).
 *
 * @module
 */
import type { Finding } from "../errors.ts";
import { isObject, setMember } from "../json/value.ts";
import { didYouMean } from "../nearest.ts";
import type { ModelSpec } from "../model/types.ts";
import type { SpecEvolution } from "./evolution.ts";
import { escapeRegExp, expressionsMentioning } from "./expression_mentions.ts";

/** Locations (`derivations[2].expr`, `library.define`) of the strings of `spec` that mention `$const.<name>`. */
export function constantReferences(spec: ModelSpec, name: string): string[] {
  const escaped = escapeRegExp(name);
  return expressionsMentioning(
    spec,
    new RegExp(`\\$const\\s*\\.\\s*(?:${escaped}(?![A-Za-z0-9_$])|\`${escaped}\`)`),
    true,
  );
}

/**
 * Applies the constants members of `evolution` to `spec`, in place, and returns
 * the names it dropped with the member that dropped them (for the reference
 * guard, run once every other section is applied).
 */
export function editConstants(
  spec: ModelSpec,
  evolution: SpecEvolution,
  findings: Finding[],
): { name: string; location: string }[] {
  const current = isObject(spec.constants) ? spec.constants : {};
  if (evolution.newConstants !== undefined) {
    spec.constants = evolution.newConstants;
    return Object.keys(current)
      .filter((name) => !Object.hasOwn(evolution.newConstants!, name))
      .map((name) => ({ name, location: "newConstants" }));
  }
  if (evolution.upsertConstants === undefined && evolution.removeConstants === undefined) return [];
  const removes = evolution.removeConstants ?? [];
  const constants = { ...current };
  for (const [name, value] of Object.entries(evolution.upsertConstants ?? {})) {
    if (removes.includes(name)) {
      findings.push({
        location: `upsertConstants.${name}`,
        message: "is both upserted and removed (removeConstants)",
      });
    } else setMember(constants, name, value);
  }
  const dropped: { name: string; location: string }[] = [];
  removes.forEach((name, i) => {
    const location = `removeConstants[${i}]`;
    if (!Object.hasOwn(constants, name)) {
      return findings.push({
        location,
        message: `there is no constant '${name}'` + didYouMean(name, Object.keys(constants)),
      });
    }
    delete constants[name];
    dropped.push({ name, location });
  });
  spec.constants = constants;
  return dropped;
}

/** Findings for dropped constants that the evolved spec still references. */
export function checkDroppedConstants(
  spec: ModelSpec,
  dropped: { name: string; location: string }[],
): Finding[] {
  return dropped.flatMap(({ name, location }) => {
    const places = constantReferences(spec, name);
    return places.length
      ? [{
        location,
        message: `constant '${name}' is still referenced by $const.${name} in ${places.join(", ")}`,
      }]
      : [];
  });
}
