/**
 * The `.value` of a text-like control, set from the model's state unless the
 * person is typing into it: a view re-renders after every commit, and a
 * commit that lands while someone types (the write of what they entered a
 * moment before, or another client's) would otherwise replace their text
 * with the state's, and the Enter that follows would write nothing. A
 * focused control whose text differs both from the state and from what the
 * renderer last put there keeps its text; once the person leaves it (or the
 * state catches up with what they typed) it follows the state again. A
 * control told to `restore` shows the state's text whatever it holds (a
 * refused removal of a required field's value: the person sees the value the
 * model kept).
 *
 * @module
 */
import { noChange } from "lit";
import { setCommittedValue } from "lit/directive-helpers.js";
import {
  Directive,
  directive,
  type Part,
  type PartInfo,
  PartType,
  type PropertyPart,
} from "lit/directive.js";

type Control = HTMLInputElement | HTMLTextAreaElement;

/** The text the renderer last gave each control. */
const shownIn = new WeakMap<Element, string>();

/** Whether `element` is a control whose text the person changed from what the renderer last gave it. */
export function isEdited(element: Element): boolean {
  const shown = shownIn.get(element);
  return shown !== undefined && (element as Control).value !== shown;
}

class KeptEdit extends Directive {
  constructor(part: PartInfo) {
    super(part);
    if (part.type !== PartType.PROPERTY || part.name !== "value") {
      throw new Error("keptEdit() binds a control's .value");
    }
  }

  render(value: string, _restore = false): string {
    return value;
  }

  override update(part: Part, [value, restore]: [string, boolean?]): string | typeof noChange {
    const control = (part as PropertyPart).element as Control;
    const typed = control.value;
    if (restore && typed !== value) {
      // Lit sets a property only when it differs from what it set last, which the state's text does not.
      setCommittedValue(part);
    } else if (typed !== value && isEdited(control) && control.matches(":focus")) {
      return noChange;
    }
    shownIn.set(control, value);
    return value;
  }
}

/**
 * `.value=${keptEdit(text, restore)}`: the state's text, except over what a person is typing unless `restore`
 * (see the module doc).
 */
export const keptEdit = directive(KeptEdit);
