/**
 * Inherited effect quarantine (SPEC.md): an inherited non-caller effect
 * carries a read-only `definitionHash` of its executable members, stamped
 * when the model is created or evolved; an approval (`approval.definitionHash`) lets
 * an inherited effect of another owner run only while that hash is unchanged,
 * so an edit of what it executes quarantines it again. The decision itself is
 * `effectGate` (engine/runtime/effects.ts), taken where effects fire.
 *
 * @module
 */
import { canonicalJson } from "../json/canonical.ts";
import { isObject, type Json, type JsonObject } from "../json/value.ts";
import type { Effect, ModelSpec } from "../model/types.ts";
import type { Hasher } from "../ports.ts";
import { effectGate } from "../runtime/effects.ts";
import type { InheritedEffectsPolicy } from "../config.ts";

/** Effect members that do not change what it executes. */
const NOT_EXECUTABLE = new Set(["description", "origin", "definitionHash", "approval"]);

/** `sha256:<hex>` of an effect's executable members. */
export async function definitionHash(effect: JsonObject, hasher: Hasher): Promise<string> {
  const executable = Object.fromEntries(Object.entries(effect).filter(([k]) => !NOT_EXECUTABLE.has(k)));
  return `sha256:${await hasher.sha256Hex(canonicalJson(executable as Json))}`;
}

/**
 * The spec with the `definitionHash` of every inherited non-caller effect
 * stamped (the only ones an approval can gate; what the author wrote there is
 * replaced, so a hash is never taken on trust).
 */
export async function stampDefinitionHashes(spec: ModelSpec, hasher: Hasher): Promise<ModelSpec> {
  if (!Array.isArray(spec.effects) || !spec.effects.some((e) => isObject(e) && isObject(e.origin))) {
    return spec;
  }
  const effects = await Promise.all(spec.effects.map(async (effect) => {
    if (!isObject(effect) || effect.executor === "caller" || !isObject(effect.origin)) return effect;
    return { ...effect, definitionHash: await definitionHash(effect as unknown as JsonObject, hasher) };
  }));
  return { ...spec, effects };
}

/** An effect waiting for approval. */
export interface PendingEffect {
  effectId: string;
  executor: string;
  origin: Json;
  definitionHash: string;
  /** Its status document, when it keeps one. */
  status: Json;
}

/** The model's inherited effects of another owner that wait for approval. */
export function pendingEffects(
  spec: ModelSpec,
  policy: InheritedEffectsPolicy,
  statusOf: (effect: Effect) => Json,
): PendingEffect[] {
  return (spec.effects ?? []).filter((effect) => effectGate(effect, spec.id, policy) === "blocked").map((
    effect,
  ) => ({
    effectId: effect.id,
    executor: String(effect.executor ?? "server"),
    origin: effect.origin as Json,
    definitionHash: String(effect.definitionHash ?? ""),
    status: statusOf(effect),
  }));
}

/** The spec with effect `effectId` approved at its current `definitionHash`. */
export function approved(spec: ModelSpec, effectId: string, at: string): ModelSpec {
  return {
    ...spec,
    effects: (spec.effects ?? []).map((effect) =>
      effect.id === effectId
        ? { ...effect, approval: { definitionHash: effect.definitionHash as Json, approvedAt: at } }
        : effect
    ),
  };
}
