/**
 * Branching (decisions/composition.md "Template flattening"): a spec with
 * `template: {ref}` becomes a self-contained spec. The template, resolved
 * through the repository chain, is already flat (stored models are), so the
 * merge is the template under the branch:
 *
 * - `id` and `version` are the branch's (the version is not inherited);
 * - `schema` is the branch's unless it is `{}`; `viewDefinition` the branch's
 *   if present; `tests` the branch's if non-empty; `constants` merge per key;
 * - derivations (by `path`), metaDerivations (`path#property`), constraints
 *   (`id`), defaultValues (`path`) and effects (`id`): a branch entry replaces
 *   the inherited one in place, new ones are appended;
 * - the library's layers are the template's, pinned, then the branch's own
 *   (`inheritLibrary`, decisions/library.md).
 *
 * `lineage` holds the whole ancestor chain, nearest first, each entry pinned
 * `{ref, version, digest, repo, owner}`; an inherited effect keeps the
 * `origin` of the ancestor that defined it (`{fromRef, fromOwner}`), effects
 * the branch declares have none. The chain must be acyclic with unique
 * identities.
 *
 * @module
 */
import { isObject, type Json, type JsonObject } from "../json/value.ts";
import { inheritLibrary } from "../model/library_layers.ts";
import type { ModelSpec } from "../model/types.ts";
import type { Resolved } from "./repository.ts";

/** One pinned ancestor. */
export interface LineageEntry {
  ref: string;
  version: string;
  digest: string;
  repo: string;
  owner: string | null;
}

/** Where an inherited effect came from. */
export interface EffectOrigin {
  fromRef: string;
  fromOwner: string | null;
}

/** A refusal of the chain itself. */
export class TemplateError extends Error {
  readonly code: "TemplateCycle" | "DuplicateLineage";
  constructor(code: TemplateError["code"], message: string) {
    super(message);
    this.name = "TemplateError";
    this.code = code;
  }
}

/** The sections merged entry by entry, with each entry's identity. */
const KEYED: Record<string, (entry: JsonObject) => string> = {
  derivations: (e) => String(e.path),
  metaDerivations: (e) => `${e.path}#${e.property}`,
  constraints: (e) => String(e.id),
  defaultValues: (e) => String(e.path),
  effects: (e) => String(e.id),
};

/** Inherited entries with the branch's replacing theirs in place, new ones appended. */
function mergeEntries(
  inherited: Json | undefined,
  own: Json | undefined,
  key: (e: JsonObject) => string,
): Json[] {
  const base = Array.isArray(inherited) ? inherited.filter(isObject) : [];
  const out: Json[] = [...base];
  for (const entry of Array.isArray(own) ? own.filter(isObject) : []) {
    const at = out.findIndex((e) => key(e as JsonObject) === key(entry));
    if (at >= 0) out[at] = entry;
    else out.push(entry);
  }
  return out;
}

/** The effects of a branch: inherited ones stamped with their origin, the branch's own without one. */
function effectsWithOrigin(inherited: Json | undefined, own: Json | undefined, template: Resolved): Json[] {
  // The branch's own entries replace inherited ones of their id in mergeEntries, origin and all.
  // An origin counts only where it names one of the template's own ancestors (a template fetched from a
  // configured repository is stored there flat, as here); otherwise the template defined the effect.
  const ancestors = new Set(lineageOf(template.spec).map((entry) => entry.ref));
  const stamped = (Array.isArray(inherited) ? inherited.filter(isObject) : []).map((effect) => {
    const origin: EffectOrigin = isObject(effect.origin) && ancestors.has(effect.origin.fromRef as string)
      ? effect.origin as unknown as EffectOrigin
      : { fromRef: template.identity, fromOwner: template.owner };
    // An approval is the branch owner's to give: one the template carries does not come along.
    const { approval: _a, definitionHash: _h, ...definition } = effect;
    return { ...definition, origin: origin as unknown as Json };
  });
  const branch = (Array.isArray(own) ? own.filter(isObject) : []).map(withoutProvenance);
  return mergeEntries(stamped, branch, KEYED.effects);
}

/**
 * An effect as its author wrote it: `origin`, `definitionHash` and `approval`
 * are the service's to set (flattening, stamping, the approve operation).
 */
export function withoutProvenance(effect: JsonObject): JsonObject {
  const { origin: _o, definitionHash: _h, approval: _a, ...definition } = effect;
  return definition;
}

/** The pinned lineage entry of a resolved template. */
export function pinned(template: Resolved): LineageEntry {
  return {
    ref: template.identity,
    version: template.version,
    digest: template.digest,
    repo: template.repo,
    owner: template.owner,
  };
}

/**
 * Flattens `branch` over its resolved `template`; throws {@link TemplateError}
 * when the chain repeats an identity (including the branch's own id).
 */
export function flatten(branch: ModelSpec, template: Resolved): ModelSpec {
  const entry = pinned(template);
  const lineage = [entry, ...lineageOf(template.spec)];
  const identities = lineage.map((e) => e.ref);
  if (identities.includes(branch.id)) {
    throw new TemplateError(
      "TemplateCycle",
      `template cycle: '${branch.id}' is its own ancestor (${[branch.id, ...identities].join(" -> ")})`,
    );
  }
  const repeated = identities.find((id, i) => identities.indexOf(id) !== i);
  if (repeated) throw new TemplateError("DuplicateLineage", `'${repeated}' appears twice in the lineage`);

  const base = template.spec as unknown as JsonObject;
  const own = branch as unknown as JsonObject;
  const { template: _t, lineage: _l, ...rest } = own;
  const flat: JsonObject = { ...rest };
  flat.schema = isObject(own.schema) && Object.keys(own.schema).length ? own.schema : base.schema;
  if (own.viewDefinition === undefined || own.viewDefinition === null) {
    if (base.viewDefinition !== undefined) flat.viewDefinition = base.viewDefinition;
  }
  if (!(Array.isArray(own.tests) && own.tests.length) && base.tests !== undefined) flat.tests = base.tests;
  const constants = {
    ...(isObject(base.constants) ? base.constants : {}),
    ...(isObject(own.constants) ? own.constants : {}),
  };
  if (Object.keys(constants).length) flat.constants = constants;
  for (const [section, key] of Object.entries(KEYED)) {
    const merged = section === "effects"
      ? effectsWithOrigin(base.effects, own.effects, template)
      : mergeEntries(base[section], own[section], key);
    if (merged.length) flat[section] = merged;
  }
  const library = inheritLibrary(base.library, own.library, entry);
  if (library !== undefined) flat.library = library as unknown as Json;
  flat.template = null;
  flat.lineage = lineage as unknown as Json;
  return flat as unknown as ModelSpec;
}

/** The pinned ancestors a stored spec carries. */
function lineageOf(spec: ModelSpec): LineageEntry[] {
  return Array.isArray(spec.lineage) ? spec.lineage.filter(isObject) as unknown as LineageEntry[] : [];
}

/** Whether a spec branches from a template that still has to be flattened. */
export function isBranch(spec: unknown): spec is ModelSpec & { template: { ref: string } } {
  return isObject(spec) && isObject(spec.template) && typeof spec.template.ref === "string";
}
