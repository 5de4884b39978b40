/**
 * What component renderers get from the view element that hosts them: the
 * model's invoker, the messages of each field, and the ways to write back.
 * Renderers are pure functions of an evaluated component and this context.
 *
 * @module
 */
import type { TemplateResult } from "lit";
import {
  type EvaluatedComponent,
  type Invoker,
  type Json,
  pathOrNull,
  pathToPointer,
} from "../../engine/mod.ts";

/** A JSON Patch operation a renderer sends (section list add). */
/** A section list row's handler: its row and where what became of its action is told (addresses as rendered). */
export interface HandlerRow {
  row: string;
  place: string;
}

export interface PatchOp {
  op: "add";
  path: string;
  value?: Json;
  [member: string]: unknown;
}
import type { FieldMessage } from "./messages.ts";

/**
 * The renderer's view of its host element. Its writes take the addresses of the render it came with: once
 * section list rows moved they follow their row, and write nothing when the row is gone. A row's write the
 * model gets after another writer moved its row writes nothing either (row_guard.ts).
 */
export interface ViewContext {
  invoker: Invoker;
  modelId: string;
  viewId: string;
  /** The section list row this context renders (its address as rendered), in a row. */
  row?: string;
  /** Bumped after every commit and refresh: panels that fetch data reload on change. */
  revision: number;
  /** A DOM id unique in this view for a component id and a suffix. */
  domId(componentId: string, suffix?: string): string;
  /** Messages at an address (canonical), or of the form as a whole (`""`). */
  messages(address: string | undefined): FieldMessage[];
  /** Every message, by address. */
  allMessages(): [string, FieldMessage[]][];
  /**
   * Writes one field; `onChange` runs after it commits. `undefined` removes the field's value (an emptied
   * control): nothing is written when it has none. `choice`: the control shows the model's value whatever
   * the person chose, so a refusal's reason is a warning, as for a refused removal.
   */
  write(address: string, value: Json | undefined, onChange?: Json, choice?: boolean): void;
  /** Applies a JSON Patch (section list add). */
  patch(ops: PatchOp[], address: string): void;
  /** Removes element `index` of the array at `list` (its messages go, those of later elements move up). */
  removeItem(list: string, index: number): void;
  /**
   * A key for each of the `count` rows of the section list at `list`, that stays with its row when rows above
   * it are removed here or by another writer (or reordered), so its controls (what a person typed, an entry the
   * model refused) move with it.
   */
  rowKeys(list: string, count: number): number[];
  /**
   * Shows `texts` beside the field at `address` in place of its messages, for an entry the renderer refused
   * and did not write (a number outside the component's bounds, a file the field does not take); `warning`
   * when the field no longer shows it.
   */
  refuse(address: string, texts: string[], severity: FieldMessage["severity"]): void;
  /**
   * Whether the control of `address` is to show the model's value again over what the person entered (their
   * removal of a required field's value, or their choice, was refused), in the render that follows the refusal.
   */
  restores(address: Json | undefined): boolean;
  /**
   * Once the writes under way are done, whether the person may leave the step that is the top-level component
   * `componentId` (step_check.ts); when not, its fields show why (worked out again on each refresh of the
   * view while they show: a reason no longer true goes).
   */
  checkStep(componentId: string): Promise<boolean>;
  /**
   * Runs an event handler `{mutations, navigate}` (button `onClick`, `onRetry`); one of a section list row's
   * component (`at`: field.ts handlerTold) does nothing once that row is gone, nor, when it writes, once
   * the row moved (its mutations name rows by index); its write into the row tests the row first, as a
   * field's does, and a conflict is told at `at.place`.
   */
  runHandler(handler: Json | undefined, at?: HandlerRow): void;
  /** Switches to another view of the model. */
  navigate(viewId: string): void;
  /** Stores files as blobs and writes their BlobRefs to `address` (one, or an array when `multiple`). */
  upload(address: string, files: File[], multiple: boolean): void;
  /** A displayable URL for an image source (a model blob path is read through the invoker). */
  imageUrl(src: string): string | undefined;
  /** UI state kept across renders (selected tab, table page), by key. */
  uiState: Map<string, number>;
  /** Re-renders after a change of `uiState`. */
  requestUpdate(): void;
  /** Focuses the element with this DOM id once the view has re-rendered (keyboard navigation). */
  focus(domId: string): void;
  /** Renders nested components (with this context: a copy with other members renders its nested ones too). */
  render(components: Json | undefined): TemplateResult;
}

/** The JSON Pointer of a concrete address (`null` when it does not parse). */
export function pointerOf(address: string): string | null {
  const path = pathOrNull(address);
  return path && pathToPointer(path);
}

/** The addresses a tree of components shows (`bind`, a date range's `bindFrom` and `bindTo`) and their values. */
export function boundValues(
  components: Json | undefined,
  out = new Map<string, Json | undefined>(),
): Map<string, Json | undefined> {
  for (const c of Array.isArray(components) ? components as unknown as EvaluatedComponent[] : []) {
    if (typeof c.bind === "string") out.set(c.bind, c.value);
    if (typeof c.bindFrom === "string") out.set(c.bindFrom, c.valueFrom);
    if (typeof c.bindTo === "string") out.set(c.bindTo, c.valueTo);
    boundValues(c.components, out);
  }
  return out;
}

/** The nested components of a container, as evaluated components. */
export function childrenOf(component: EvaluatedComponent): EvaluatedComponent[] {
  return Array.isArray(component.components) ? component.components as unknown as EvaluatedComponent[] : [];
}
