/**
 * Constraints inside a cycle: each constraint the changes touched is evaluated
 * (once per touched element for a `[*]` one) after the derivations settle; a
 * result of false, 0, '' or an evaluation error fails it, null or no value
 * passes. Failures are split by policy: rollback reverts the cycle, flag is
 * reported with the committed result.
 *
 * @module
 */
import type { ConstraintViolation } from "../errors.ts";
import { touchedInOrder } from "../graph/touched.ts";
import type { CycleState, Evaluated } from "./cycle_state.ts";
import { materializeInputs } from "./derive.ts";
import type { Steps } from "./steps.ts";
import { truthy } from "./truthy.ts";

/**
 * Evaluates the constraints the changes touched; returns the failures by policy.
 * `again`: the cycle checked its constraints already, these changes are its
 * effects' status documents.
 */
export function* checkConstraints(
  state: CycleState,
  again = false,
): Steps<{ rollback: ConstraintViolation[]; flagged: ConstraintViolation[] }> {
  const rollback: ConstraintViolation[] = [];
  const flagged: ConstraintViolation[] = [];
  for (const node of touchedInOrder(state.model.graph.constraints, () => state.dirty)) {
    // One checked after every change was checked already: the cycle's clock stands still, so only a
    // status document it reads can change its answer.
    if (again && node.everyChange && !state.dirty.touches({ reads: node.reads, elementPattern: null })) {
      continue;
    }
    const elements = state.work(node);
    if (!elements.length) continue;
    if (state.stale.size) yield* materializeInputs(state, node);
    const c = node.constraint;
    let failed = false;
    for (const element of elements) {
      // Inlined `yield* settled(...)`: no generator per evaluation, most are answered at once.
      const pending = state.evaluate(node, element, node.key);
      const { value, error } = pending instanceof Promise ? (yield pending) as Evaluated : pending;
      const passed = !error && (value === undefined || value === null || truthy(value));
      state.traces[state.traces.length - 1].constraintPassed = passed;
      if (!passed) failed = true;
    }
    if (failed) {
      (c.policy === "rollback" ? rollback : flagged).push({
        constraintId: c.id,
        message: c.message,
        policy: c.policy,
      });
    }
  }
  return { rollback, flagged };
}
