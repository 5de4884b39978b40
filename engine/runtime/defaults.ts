/**
 * Defaults for the containers a write created: the schema's `default`s of the
 * new object's members, then the `defaultValues` rules whose path matches it,
 * merged without overwriting what was written. A default the schema refuses is
 * a spec error, never committed state.
 *
 * @module
 */
import { unprocessable } from "../errors.ts";
import { formatPath, patternMatches, type Segment } from "../json/path.ts";
import { isObject, type Json } from "../json/value.ts";
import { ownMember } from "../json/wide_object.ts";
import type { CycleState } from "./cycle_state.ts";
import { settled, type Steps } from "./steps.ts";

/** Fills schema `default`s and defaultValues rules into containers created by the writes. */
export function* applyDefaults(state: CycleState): Steps<void> {
  for (let i = 0; i < state.created.length; i++) {
    const at = state.created[i];
    // A created container is new as a whole, not only at the fields the write named.
    state.dirty.add(at);
    const container = state.draft.get(at);
    if (!isObject(container)) continue;
    const fragment = state.model.schema.fragmentAt(at);
    if (isObject(fragment.properties)) {
      for (const [name, sub] of Object.entries(fragment.properties)) {
        if (isObject(sub) && sub.default !== undefined && ownMember(container, name) === undefined) {
          fill(state, [...at, name], structuredClone(sub.default), "the schema default");
        }
      }
    }
    for (const rule of state.model.defaults) {
      if (!patternMatches(rule.path, at)) continue;
      const value = yield* settled(state.evaluateExpression(
        rule.compiled,
        state.draft.get(at),
        `default ${formatPath(rule.path)}`,
      ));
      if (isObject(value)) mergeDefaults(state, at, value, `defaultValues rule ${formatPath(rule.path)}`);
    }
  }
}

/** Merges a rule's defaults into the container at `at`, member by member, keeping what is there. */
function mergeDefaults(
  state: CycleState,
  at: Segment[],
  defaults: Record<string, Json>,
  source: string,
): void {
  for (const [key, value] of Object.entries(defaults)) {
    const path = [...at, key];
    const existing = state.draft.get(path);
    if (existing === undefined) fill(state, path, value, source);
    else if (isObject(existing) && isObject(value)) mergeDefaults(state, path, value, source);
  }
}

/** Writes a default; a default the schema refuses is a spec error, never committed state. */
function fill(state: CycleState, path: Segment[], value: Json, source: string): void {
  if (state.derivedAt(path)) return;
  const violations = state.model.schema.validateAt(path, value);
  if (violations.length) {
    const detail = violations.map((v) => `${v.path} ${v.message}`).join("; ");
    throw unprocessable(
      `The default for ${formatPath(path)} from ${source} violates the schema: ${detail}`,
    );
  }
  state.draft.set(path, value, state.created);
  state.dirty.add(path);
  state.mutated.add(formatPath(path));
}
