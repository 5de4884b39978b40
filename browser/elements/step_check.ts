/**
 * What holds a person on a step of a wizard (Next, the last step's buttons):
 * among the shown fields of the step, one the model's live metas make
 * required (`required`, `#required`) that has no value, one whose value is
 * outside the component's `min` and `max`, and one with an error beside it
 * (an entry the model refused, which the field still shows). Hidden fields
 * (`visible` false, `#relevant` false) and fields a person cannot change
 * hold nobody.
 *
 * @module
 */
import type { EvaluatedComponent, Json } from "../../engine/mod.ts";
import { canonical, type FieldMessage, type MessageMap } from "./messages.ts";
import { childrenOf } from "./view_context.ts";

/** Whether a value counts as none for a required field. */
const empty = (value: Json | undefined) =>
  value === undefined || value === null || value === "" || (Array.isArray(value) && !value.length);

/** The addresses a field writes and their values (a date range's two ends, else its `bind`). */
function valuesOf(c: EvaluatedComponent): [string, Json | undefined][] {
  const pairs: [Json | undefined, Json | undefined][] = c.type === "dateRangeField"
    ? [[c.bindFrom, c.valueFrom], [c.bindTo, c.valueTo]]
    : [[c.bind, c.value]];
  return pairs.filter((pair): pair is [string, Json | undefined] => typeof pair[0] === "string");
}

/** What holds a step. */
export interface StepCheck {
  /** Whether a field of the step holds the person on it. */
  held: boolean;
  /** The messages to add, by canonical address (none where a field shows its reason already). */
  added: MessageMap;
}

/**
 * Checks the fields of `components` (and of their nested components); `messagesAt` gives the messages a
 * field shows now.
 */
export function checkStep(
  components: EvaluatedComponent[],
  messagesAt: (address: string) => FieldMessage[],
  check: StepCheck = { held: false, added: new Map() },
): StepCheck {
  for (const c of components) {
    if (c.visible === false) continue;
    // Inputs carry `required`; a read-only or disabled one is not the person's to complete.
    if (typeof c.required === "boolean" && c.readOnly !== true && c.enabled !== false) {
      for (const [address, value] of valuesOf(c)) {
        const shown = messagesAt(address);
        const texts = [
          ...(c.required && empty(value) ? ["is required"] : []),
          ...(typeof value === "number" && typeof c.min === "number" && value < c.min
            ? [`must be >= ${c.min}`]
            : []),
          ...(typeof value === "number" && typeof c.max === "number" && value > c.max
            ? [`must be <= ${c.max}`]
            : []),
        ].filter((text) => !shown.some((m) => m.text === text));
        if (texts.length) {
          check.added.set(canonical(address), texts.map((text) => ({ text, severity: "error" })));
        }
        if (texts.length || shown.some((m) => m.severity === "error")) check.held = true;
      }
    }
    checkStep(childrenOf(c), messagesAt, check);
  }
  return check;
}
