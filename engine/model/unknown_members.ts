/**
 * Warnings for what a spec author most likely mistyped: a member no entry of
 * its kind knows (`expression` beside a missing `expr`, `statusPth`), which the
 * compiler would silently ignore. Warnings, not errors: extra members are
 * allowed. Annotations (`_name`, `x-…`) are never reported. The known members
 * are the ModelSpec schema's `properties` (one list of them).
 *
 * @module
 */
import type { Finding } from "../errors.ts";
import { isObject, type JsonObject } from "../json/value.ts";
import { nearestName } from "../nearest.ts";
import { MAX_QUOTED_WORD, quoted } from "../quoted.ts";
import { MODEL_SPEC_SCHEMA } from "./model_spec_schema.ts";
import type { ModelSpec } from "./types.ts";

/** The member names a `$defs` entry of the ModelSpec schema declares. */
export function schemaMembers(definition: string): string[] {
  const def = (MODEL_SPEC_SCHEMA.$defs as JsonObject)[definition] as JsonObject;
  return Object.keys(def.properties as JsonObject);
}

/**
 * `unknown <what> '<name>' <outcome>`, the name quoted short, with the nearest of `known`
 * when close, or one it starts with (`expression` for `expr`).
 */
export function unknownName(what: string, name: string, outcome: string, known: readonly string[]): string {
  const suggestion = nearestName(name, known) ?? known.find((k) => k.length > 3 && name.startsWith(k));
  return `unknown ${what} '${quoted(name, MAX_QUOTED_WORD)}' ${outcome}` +
    (suggestion ? ` (did you mean '${suggestion}'?)` : "");
}

/** Warns, at `<at>.<member>`, of each member of `entry` not in `known` (annotations aside). */
export function warnUnknownMembers(
  entry: JsonObject,
  known: readonly string[],
  at: string,
  warn: (at: string, message: string) => void,
): void {
  for (const member of Object.keys(entry)) {
    if (known.includes(member) || member.startsWith("_") || member.startsWith("x-")) continue;
    warn(`${at}.${quoted(member, MAX_QUOTED_WORD)}`, unknownName("member", member, "is ignored", known));
  }
}

/** Executors whose members the engine reads; an operator-installed kind gets the whole effect. */
const BUILTIN_EXECUTORS = [undefined, "server", "caller", "llm", "timer"];

/**
 * Unknown members of the entries of the array sections (those the schema's `items` define: derivations,
 * constraints, …), by section name.
 */
export function unknownEntryMembers(
  spec: ModelSpec,
  warn: (section: string, finding: Finding) => void,
): void {
  for (const [section, member] of Object.entries(MODEL_SPEC_SCHEMA.properties as JsonObject)) {
    const ref = ((member as JsonObject).items as JsonObject | undefined)?.$ref;
    const entries = spec[section];
    if (typeof ref !== "string" || !Array.isArray(entries)) continue;
    const known = schemaMembers(ref.slice("#/$defs/".length));
    entries.forEach((entry, i) => {
      if (
        !isObject(entry) || (section === "effects" && !BUILTIN_EXECUTORS.includes(entry.executor as string))
      ) {
        return;
      }
      warnUnknownMembers(
        entry,
        known,
        `${section}[${i}]`,
        (location, message) => warn(section, { location, message }),
      );
    });
  }
}
