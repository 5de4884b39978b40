/**
 * The `effects` section: effect requests emitted as data when a trigger holds.
 * Ids are unique; the executor kind must be enabled (`svc.effects.kinds.enabled`);
 * the trigger and every other JSONata member (`dedupeKey`, `requests`,
 * `prompt`, `at`, `afterMs`) make the effect's node depend on what they read.
 *
 * @module
 */
import type { CompiledExpression } from "../../expr/compiler.ts";
import { isObject } from "../../json/value.ts";
import type { CompiledEffect, NodeDefinition } from "../nodes.ts";
import type { Effect, ModelSpec } from "../types.ts";
import type { SectionContext } from "./context.ts";

/** Effect members holding JSONata whose reads make the effect's node dirty. */
const TRIGGER_MEMBERS = ["trigger", "dedupeKey", "requests", "prompt", "at", "afterMs"];

/** The EFFECT nodes of a spec. */
export function compileEffects(spec: ModelSpec, ctx: SectionContext): NodeDefinition[] {
  const definitions: NodeDefinition[] = [];
  const ids = new Set<string>();
  const kinds = ctx.env.config.effectKindsEnabled;
  for (const { entry: e, index, location } of ctx.entries(spec, "effects")) {
    if (typeof e.id === "string" && e.id.trim() !== "") {
      if (ids.has(e.id)) ctx.error(`${location}.id`, `duplicate effect id '${e.id}'`);
      else ids.add(e.id);
    }
    const executor = e.executor === undefined ? "server" : e.executor;
    if (kinds && typeof executor === "string" && executor.trim() !== "" && !kinds.includes(executor)) {
      ctx.error(
        `${location}.executor`,
        `executor kind '${executor}' is not enabled (svc.effects.kinds.enabled: ${kinds.join(", ")})`,
      );
    }
    if (e.statusPath !== undefined) ctx.address(e.statusPath, `${location}.statusPath`, true);
    const sources: CompiledExpression[] = [];
    let trigger: CompiledExpression | null = null;
    for (const member of TRIGGER_MEMBERS) {
      if (e[member] === undefined) continue;
      const compiled = ctx.expression(e[member], `${location}.${member}`);
      if (compiled) sources.push(compiled);
      if (member === "trigger") trigger = compiled;
    }
    const payload = compilePayload(e.payload, `${location}.payload`, ctx);
    if (!trigger || typeof e.id !== "string" || typeof executor !== "string") continue;
    definitions.push({
      node: {
        key: `$effect:${e.id}`,
        kind: "EFFECT",
        label: typeof e.description === "string" ? e.description : e.id,
        expression: e.trigger as string,
        elementPattern: null,
        index,
        reads: [],
        level: 0,
        compiled: trigger,
        effect: { definition: e as unknown as Effect, executor, payload },
      },
      sources,
    });
  }
  return definitions;
}

/** A caller effect's `payload`: one expression, or one per member of an object. */
function compilePayload(payload: unknown, location: string, ctx: SectionContext): CompiledEffect["payload"] {
  if (typeof payload === "string") return ctx.expression(payload, location);
  if (!isObject(payload)) return null;
  const members: Record<string, CompiledExpression> = {};
  for (const [key, source] of Object.entries(payload)) {
    const compiled = ctx.expression(source, `${location}.${key}`);
    if (compiled) members[key] = compiled;
  }
  return members;
}
