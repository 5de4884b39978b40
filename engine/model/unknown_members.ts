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
import { didYouMean, nearestName } from "../nearest.ts";
import { MAX_QUOTED_WORD, quoted } from "../quoted.ts";
import { MODEL_SPEC_SCHEMA } from "./model_spec_schema.ts";
import type { ModelSpec } from "./types.ts";

/** A `$defs` entry of the ModelSpec schema. */
export function schemaDef(definition: string): JsonObject {
  return (MODEL_SPEC_SCHEMA.$defs as JsonObject)[definition] as JsonObject;
}

/**
 * `unknown <what> '<name>' <outcome>`, the name quoted short, with `suggestion` if given, else the nearest
 * of `known` when close, or one it starts with (`expression` for `expr`).
 */
export function unknownName(
  what: string,
  name: string,
  outcome: string,
  known: readonly string[],
  suggestion = nearestName(name, known) ?? known.find((k) => k.length > 3 && name.startsWith(k)),
): string {
  return `unknown ${what} '${quoted(name, MAX_QUOTED_WORD)}' ${outcome}` +
    didYouMean(name, known, suggestion);
}

/**
 * Warns, at `<at>.<member>`, of each member of `value` not in `known` (the schema `node`'s `properties` by
 * default; annotations aside), then likewise in the objects nested where `node` declares their members
 * (an effect's `request`, a component's `options[i]`). A `$ref` is not followed: the entries it names are
 * checked where they are compiled.
 */
export function warnUnknownMembers(
  value: unknown,
  node: JsonObject,
  at: string,
  warn: (at: string, message: string) => void,
  known?: readonly string[],
): void {
  const properties = node.properties as JsonObject | undefined;
  if (Array.isArray(value) && isObject(node.items)) {
    value.forEach((item, i) => warnUnknownMembers(item, node.items as JsonObject, `${at}[${i}]`, warn));
  }
  known ??= properties && Object.keys(properties);
  if (!known || !isObject(value)) return;
  for (const member of Object.keys(value)) {
    const location = `${at}.${quoted(member, MAX_QUOTED_WORD)}`;
    if (known.includes(member)) {
      const inner = properties?.[member];
      if (isObject(inner)) warnUnknownMembers(value[member], inner, location, warn);
    } else if (!member.startsWith("_") && !member.startsWith("x-")) {
      warn(location, unknownName("member", member, "is ignored", known));
    }
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
    const ref = ((member as JsonObject).items as JsonObject | undefined)?.$ref as string | undefined;
    const entries = spec[section];
    if (!ref || !Array.isArray(entries)) continue;
    warnUnknownMembers(
      // An operator-installed effect kind's members are its own: such an effect is left out (null).
      entries.map((e) => section !== "effects" || BUILTIN_EXECUTORS.includes(e?.executor) ? e : null),
      { items: schemaDef(ref.slice(8)) },
      section,
      (location, message) => warn(section, { location, message }),
    );
  }
}
