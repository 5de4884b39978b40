/// <reference lib="dom" />
/**
 * The person's place across a render: section list rows are keyed, so a row
 * another writer moves keeps its DOM, but moving a node takes the focus off
 * the control in it (the browser blurs a node taken out of the page, even to
 * put it back at once, and an edited control then fires `change`, which
 * would write the half-typed text). The control that had the focus gets it
 * back, with its caret or selection and what the person typed, unwritten, on
 * the row it followed. When its row is gone, the nearest list still shown
 * takes the focus (not the page), and says whether an edit went with the row,
 * or the focused Remove button (another writer removed its row: the person's
 * next Enter must not remove another). After the person's own Remove, that
 * button hands the focus to the Remove of the row after (else before) it,
 * where someone going down the list removing rows expects it.
 *
 * @module
 */
import { isEdited } from "./kept_edit.ts";

/** What a list says that took the focus of a row's Remove button, its row removed by another writer. */
export const ROW_REMOVED = "The row was removed meanwhile (another writer).";

/**
 * The focus lost with its row: the list shown that took it, and whether the person's edit went with the row,
 * or the row's Remove button (`removal`).
 */
export interface FocusLost {
  list: HTMLElement;
  edited: boolean;
  removal: boolean;
}

/** The elements around `node` (itself too) that match `selector`, innermost first. */
function around(node: Element, selector: string): Element[] {
  const found: Element[] = [];
  for (let at = node.closest(selector); at; at = at.parentElement?.closest(selector) ?? null) found.push(at);
  return found;
}

/** The rows of `list` (not those of lists nested in them). */
const rowsOf = (list: Element | undefined) =>
  [...list?.children ?? []].filter((e) => e.matches(".section-item"));

/**
 * Notes the focused element of `root` before a render; the function it returns, called after the render, gives
 * it the focus back when the render moved it, or, when its row is gone, focuses the nearest list still shown and
 * answers {@link FocusLost} (`null` otherwise); but the focus of a Remove button whose row the person's own
 * Remove removed (`removedHere`, of the row's list) goes to the next Remove.
 */
export function keepFocus(
  root: DocumentOrShadowRoot,
  removedHere: (list: HTMLElement) => boolean,
): () => FocusLost | null {
  const active = root.activeElement as HTMLInputElement | null;
  if (!active) return () => null;
  // `selectionStart` is null for controls without a caret (a number, a select), and throws for none.
  const selection = "selectionStart" in active && active.selectionStart !== null
    ? [
      active.selectionStart,
      active.selectionEnd ?? active.selectionStart,
      active.selectionDirection ?? undefined,
    ] as const
    : null;
  const rows = around(active, ".section-item");
  const lists = around(active, ".section-list") as HTMLElement[];
  const [edited, typed] = [isEdited(active), active.value];
  // A row's Remove button: the rows after its row, then those before it (nearest first).
  const removal = active.matches(".section-item > button.remove");
  const siblings = removal ? rowsOf(lists[0]) : [];
  const at = siblings.indexOf(rows[0]);
  const neighbours = [...siblings.slice(at + 1), ...siblings.slice(0, at).reverse()];
  // The blur of a control taken out of the page, even to be put back at once, makes it `change`: held until
  // the render is done, it counts unless the control gets the focus back (as it did before this module).
  let held = false;
  const hold = (event: Event) => {
    held = true;
    event.stopImmediatePropagation();
  };
  active.addEventListener("change", hold, { capture: true });
  return () => {
    active.removeEventListener("change", hold, { capture: true });
    // Only a focus the render took (none now): one the page gave elsewhere meanwhile stays there.
    if (active.isConnected && root.activeElement === null) {
      active.focus();
      // The held `change` told the browser the text was entered: typed again (as the person would), it is an
      // edit the next Enter or leaving the field writes. Typing also puts it back over the state's text that a
      // control moved before its value was set (so, unfocused) shows. Setting `value` (and sending `input`)
      // instead would not: the browser fires `change` for a person's edits only.
      if (edited) {
        active.value = "";
        active.ownerDocument.execCommand("insertText", false, typed);
      }
      if (selection) active.setSelectionRange(...selection);
      return null;
    }
    if (held) active.dispatchEvent(new Event("change", { bubbles: true }));
    if (active.isConnected) return null;
    const list = rows.some((row) => !row.isConnected) ? lists.find((l) => l.isConnected) : undefined;
    if (!list || root.activeElement !== null) return null;
    const next = neighbours.find((row) => row.isConnected)?.querySelector<HTMLElement>(
      ":scope > button.remove",
    );
    if (removal && removedHere(lists[0])) {
      (next ?? list).focus();
      return null;
    }
    list.focus();
    return { list, edited, removal };
  };
}
