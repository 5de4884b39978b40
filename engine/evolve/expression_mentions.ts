/**
 * Where the expressions of a spec mention something: a textual scan of every
 * string of the sections that hold (or embed) expressions, used by the guards
 * that refuse dropping what an expression still uses (a constant, a library
 * export). Being textual, it does not see dynamic access (`$const[name]`).
 *
 * @module
 */
import { isObject, type Json } from "../json/value.ts";
import type { ModelSpec } from "../model/types.ts";

/** The spec sections whose strings are (or embed) expressions. */
const EXPRESSION_SECTIONS = [
  "derivations",
  "metaDerivations",
  "constraints",
  "effects",
  "defaultValues",
  "viewDefinition",
] as const;

/** `text` with every regular expression metacharacter escaped. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Locations (`derivations[2].expr`) of the strings of `spec`'s expression
 * sections that match `mention`; with `library`, of its library too (which
 * reads constants, but not its own exports: a layer may keep a function it no
 * longer exports).
 */
export function expressionsMentioning(spec: ModelSpec, mention: RegExp, library?: boolean): string[] {
  const places: string[] = [];
  const visit = (node: Json | undefined, location: string) => {
    if (typeof node === "string") {
      if (mention.test(node)) places.push(location);
    } else if (Array.isArray(node)) node.forEach((n, i) => visit(n, `${location}[${i}]`));
    else if (isObject(node)) {
      for (const [key, value] of Object.entries(node)) visit(value, `${location}.${key}`);
    }
  };
  const sections = library ? [...EXPRESSION_SECTIONS, "library"] : EXPRESSION_SECTIONS;
  for (const section of sections) visit(spec[section] as Json | undefined, section);
  return places;
}
