/// <reference lib="dom" />
/**
 * After the person's own Add of a section list, the new row's first control
 * takes the focus once the row shows, so a keyboard or screen reader user goes
 * on in the row they asked for (before, the focus stayed on Add and nothing
 * said that a row had come). Only while the focus is still on Add: a person
 * who moved on meanwhile keeps their place, and a refused Add (no row comes)
 * stops waiting as soon as they leave the button.
 *
 * @module
 */

/** The list's rows as shown. */
function rowsOf(list: Element): NodeListOf<HTMLElement> {
  return list.querySelectorAll<HTMLElement>(":scope > .section-item");
}

/** Moves the focus from `add` (a list's Add button, just pressed) to the first control of the row it adds. */
export function focusAddedRow(add: HTMLElement): void {
  const list = add.closest(".section-list");
  if (!list) return;
  const before = rowsOf(list).length;
  const stop = () => {
    observer.disconnect();
    add.removeEventListener("focusout", stop);
  };
  const observer = new MutationObserver(() => {
    const rows = rowsOf(list);
    if (rows.length <= before) return;
    stop();
    if ((add.getRootNode() as Document | ShadowRoot).activeElement !== add) return;
    rows[rows.length - 1].querySelector<HTMLElement>(
      "input:not([disabled]), select:not([disabled]), textarea:not([disabled]), button:not([disabled])",
    )?.focus();
  });
  observer.observe(list, { childList: true });
  add.addEventListener("focusout", stop);
}
