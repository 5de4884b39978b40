/**
 * Effects as data: after a cycle settles, each effect whose trigger's inputs
 * changed and whose trigger holds fires. A caller effect is reported in the
 * result with its evaluated payload; any other kind becomes an effect request
 * for its executor. Nothing here performs I/O.
 *
 * @module
 */
import type { Json } from "../json/value.ts";
import type { CompiledExpression } from "../expr/compiler.ts";
import type { EffectNode } from "../model/nodes.ts";
import type { CycleState } from "./cycle_state.ts";
import { materializeInputs } from "./derive.ts";
import type { DispatchedEffect, EffectRequest } from "./results.ts";
import { truthy } from "./truthy.ts";

/** Evaluates the triggers of the effects the changes touched. */
export async function collectEffects(
  state: CycleState,
): Promise<{ dispatched: DispatchedEffect[]; requests: EffectRequest[] }> {
  const dispatched: DispatchedEffect[] = [];
  const requests: EffectRequest[] = [];
  for (const node of state.model.graph.effects) {
    if (!state.dirty.touches(node)) continue;
    await materializeInputs(state, node);
    const { value, error } = await state.evaluate(node, null, node.key);
    if (error || !truthy(value)) continue;
    const effect = node.effect;
    if (effect.executor !== "caller") {
      requests.push({
        effectId: effect.definition.id,
        executor: effect.executor,
        definition: effect.definition,
      });
      continue;
    }
    dispatched.push({
      effectId: effect.definition.id,
      emit: effect.definition.emit ?? null,
      payload: await payloadOf(state, node),
    });
  }
  return { dispatched, requests };
}

/** A caller effect's payload: its expression, or its members one by one (a failure becomes `{error}`). */
async function payloadOf(state: CycleState, node: EffectNode): Promise<Json> {
  const payload = node.effect.payload;
  const run = async (compiled: CompiledExpression) => {
    try {
      return await compiled.evaluate(state.draft.root, { const: state.model.constants }, state.timing);
    } catch (err) {
      return { error: (err as Error).message };
    }
  };
  if (payload === null) return null;
  if ("evaluate" in payload && typeof payload.evaluate === "function") {
    return (await run(payload as CompiledExpression)) ?? null;
  }
  const out: Record<string, Json> = {};
  for (const [key, compiled] of Object.entries(payload as Record<string, CompiledExpression>)) {
    const value = await run(compiled);
    if (value !== undefined) out[key] = value;
  }
  return out;
}
