/**
 * Derivation inside a cycle: the derivations the changes touched, level by
 * level (per element for `[*]` targets; lazy ones only marked stale, and
 * evaluated first when an eager node reads them), and the meta derivations,
 * whose values live in the meta cache under concrete keys
 * (`$.items[2].qty#maximum`); null or no value removes one, a value the
 * property cannot take fails like an expression that fails.
 *
 * @module
 */
import { unprocessable } from "../errors.ts";
import { touchedInOrder } from "../graph/touched.ts";
import { formatPath, pathOrNull, patternMatches, type Segment } from "../json/path.ts";
import { getAt } from "../json/document.ts";
import { isObject, type Json } from "../json/value.ts";
import type { CompiledNode, DerivedNode, MetaNode } from "../model/nodes.ts";
import { UNSUPPORTED } from "./aggregate/plan.ts";
import type { CycleState, Evaluated } from "./cycle_state.ts";
import { withoutTargets } from "./hidden_targets.ts";
import { metaValueProblem } from "./meta_values.ts";
import type { Steps } from "./steps.ts";

/** Evaluates stale lazy derivations that `node` reads before it runs. */
export function* materializeInputs(state: CycleState, node: CompiledNode): Steps<void> {
  if (state.stale.size === 0) return;
  for (const key of state.model.graph.predecessors.get(node.key) ?? []) {
    const lazy = state.stale.has(key) ? state.model.graph.derivedOrder.find((d) => d.key === key) : undefined;
    if (!lazy) continue;
    yield* materializeInputs(state, lazy);
    state.writableStale().delete(key);
    yield* deriveElements(state, lazy, state.allElements(lazy));
  }
}

/** The concrete target of a DERIVED or META node for one element (its pattern for a global node). */
function concreteTarget(node: DerivedNode | MetaNode, element: Segment[] | null): Segment[] {
  const target = node.target;
  return element ? [...element, ...target.slice(element.length)] : target;
}

/**
 * Evaluates a derivation for one element (or globally); an aggregate derivation
 * is answered by its index where it has one (`aggregate/incremental.ts`).
 */
function evaluateDerivation(
  state: CycleState,
  node: DerivedNode,
  element: Segment[] | null,
  address: string,
  view: View | undefined,
): Evaluated | Promise<Evaluated> {
  // An index holds every element's value as it is; one hiding targets is evaluated on its view.
  const plan = element === null && !view ? state.aggregates.planOf(node) : null;
  if (plan) {
    const change = { base: state.base, doc: state.draft.root, dirty: state.dirty };
    const value = state.aggregates.value(node, plan, change);
    if (value !== UNSUPPORTED) {
      state.trace(node, address, value, null);
      return { value, error: null };
    }
  }
  return state.evaluate(node, element, address, view);
}

/** The document and element a derivation sees. */
type View = { root: Json; parent: Json | undefined };

/** Evaluates a derivation for the given elements and writes its values into the draft. */
function* deriveElements(
  state: CycleState,
  node: DerivedNode,
  elements: (Segment[] | null)[],
): Steps<void> {
  const hides = node.hides;
  // One view for all elements: the derivation writes nothing but its own targets, which it hides.
  const root = hides?.root.length ? withoutTargets(state.draft.root, hides.root)! : state.draft.root;
  for (const element of elements) {
    if (element && !isObject(state.draft.get(element))) continue;
    const target = concreteTarget(node, element);
    const address = formatPath(target);
    const view = hides &&
      { root, parent: element ? withoutTargets(getAt(root, element), hides.parent) : undefined };
    // Inlined `yield* settled(...)`: no generator per evaluation, most are answered at once.
    const pending = evaluateDerivation(state, node, element, address, view);
    const { value, error } = pending instanceof Promise ? (yield pending) as Evaluated : pending;
    if (error) throw unprocessable(`Evaluation of derivation ${address} failed: ${error}`);
    if (value === undefined) state.draft.delete(target);
    else state.draft.set(target, value);
    state.dirty.add(target);
    state.derived.add(address);
  }
}

/** Evaluates the derivations the changes touched, level by level. */
export function* derive(state: CycleState): Steps<void> {
  for (const node of touchedInOrder(state.model.graph.derivedOrder, () => state.dirty)) {
    const elements = state.work(node);
    if (!elements.length) continue;
    if (node.lazy) {
      state.writableStale().add(node.key);
      state.dirty.add(node.target);
      continue;
    }
    if (state.stale.size) yield* materializeInputs(state, node);
    yield* deriveElements(state, node, elements);
  }
}

/** Evaluates every stale lazy derivation (before a read). */
export function* materializeLazy(state: CycleState): Steps<void> {
  for (const node of state.model.graph.derivedOrder) {
    if (!node.lazy || !state.stale.has(node.key)) continue;
    state.writableStale().delete(node.key);
    yield* deriveElements(state, node, state.allElements(node));
  }
}

/**
 * Evaluates the meta derivations the changes touched. Meta values live beside the
 * document under concrete paths, so when elements moved or vanished every element
 * of a per-element meta is recomputed and the keys of vanished elements dropped.
 */
export function* deriveMetas(state: CycleState): Steps<void> {
  for (const node of touchedInOrder(state.model.graph.metas, () => state.dirty)) {
    const reshaped = node.elementPattern !== null && state.dirty.reshapes(node.elementPattern);
    const elements = reshaped ? state.allElements(node) : state.work(node);
    if (reshaped) dropVanishedMetas(state, node, elements as Segment[][]);
    if (!elements.length) continue;
    if (state.stale.size) yield* materializeInputs(state, node);
    for (const element of elements) {
      if (element && state.draft.get(element) === undefined) continue;
      const key = `${formatPath(concreteTarget(node, element))}#${node.metaKey}`;
      const pending = state.evaluate(node, element, key);
      const { value, error } = pending instanceof Promise ? (yield pending) as Evaluated : pending;
      const absent = value === undefined || value === null;
      const problem = absent ? null : metaValueProblem(node.metaKey, value);
      if (error || problem) {
        throw unprocessable(`Evaluation of meta derivation ${key} failed: ${error ?? problem}`);
      }
      const meta = state.writableMeta();
      if (absent) meta.delete(key);
      else meta.set(key, value);
      state.metaUpdated.add(key);
    }
  }
}

/** Removes the meta values of `node` whose element is not among `elements`. */
function dropVanishedMetas(state: CycleState, node: MetaNode, elements: Segment[][]): void {
  const live = new Set(
    elements.map((el) => `${formatPath(concreteTarget(node, el))}#${node.metaKey}`),
  );
  const suffix = `#${node.metaKey}`;
  for (const key of state.meta.keys()) {
    if (!key.endsWith(suffix) || live.has(key)) continue;
    const path = pathOrNull(key.slice(0, -suffix.length));
    if (!path || !patternMatches(node.target, path)) continue;
    state.writableMeta().delete(key);
    state.metaUpdated.add(key);
  }
}
