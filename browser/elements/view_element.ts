/// <reference lib="dom" />
/**
 * `<svc-view>`: renders a model's view from the engine's EvaluatedView and
 * keeps it current. It talks to the model only through an invoker of the
 * operation registry (`localInvoker` in the tab, `remoteInvoker` against a
 * server): `getView` to load, `mutate`/`patch` with `viewId` to write (the
 * answer's `viewDelta` replaces exactly the components the write touched),
 * `getSpec` for constraint paths, `evalExpression` for event handlers. A
 * {@link Feed} brings other writers' changes (a reload of the view).
 *
 * Events (bubbling, composed): `svc-commit` `{modelId, viewId, result}` after
 * every committed write; `svc-error` `{modelId, message}` after a refused one;
 * `svc-navigate` `{modelId, viewId}` when the view shown changes to another of the model's, by a
 * navigation of the view's or the host's new `view` alike.
 *
 * A view opens when it shows (its `onOpen` runs) and closes when the person
 * leaves it: for another view, or with the element, taken out of the page
 * (its `onClose` runs, its mutations only).
 *
 * @module
 */
import { html, LitElement, nothing, type PropertyValues } from "lit";
import { keyed } from "lit/directives/keyed.js";
import { cssomStyle } from "./cssom_style.ts";
import {
  type EvaluatedComponent,
  type EvaluatedView,
  type Invoker,
  isPrefixOf,
  type Json,
  type ModelSpec,
  operations,
  pathOrNull,
} from "../../engine/mod.ts";
import { getAt } from "../../engine/json/document.ts";
import { jsonEqual, setMember } from "../../engine/json/value.ts";
import type { WriteResult } from "../../engine/service/api.ts";
import { type AuthoringEngine, localAuthoring } from "../../engine/service/authoring.ts";
import { type Feed, goneMessage } from "../host/feed.ts";
import {
  canonical,
  type FieldMessage,
  type MessageMap,
  messagesOfError,
  placeConstraints,
} from "./messages.ts";
import {
  fingerprint,
  followAddress,
  followIds,
  followKeys,
  followLists,
  followRows,
  removal,
  type RowMove,
  RowMoveLog,
} from "./row_moves.ts";
import { regionOptions } from "./entry_bounds.ts";
import { keepFocus, ROW_REMOVED } from "./focus_keeper.ts";
import {
  isRowConflict,
  readerOf,
  ROW_CHANGED,
  ROW_CHANGED_ACTION,
  rowOf,
  type RowOp,
  rowPatch,
  rowWrites,
} from "./row_guard.ts";
import { renderComponents } from "./render.ts";
import { viewBody } from "./containers.ts";
import { checkStep } from "./step_check.ts";
import { VIEW_STYLES } from "./styles.ts";
import { boundValues, childrenOf, type HandlerRow, pointerOf, type ViewContext } from "./view_context.ts";

let instances = 0;

/** The page's authoring engine for view expressions (made on first use, shared by every view element). */
let authoring: AuthoringEngine | undefined;
function viewAuthoring(): AuthoringEngine {
  return authoring ??= localAuthoring();
}

/** Components of a tree with those of `delta` swapped in by id. */
export function applyDelta(
  components: EvaluatedComponent[],
  delta: Record<string, EvaluatedComponent>,
): EvaluatedComponent[] {
  return components.map((c) => {
    const replaced = Object.hasOwn(delta, c.id) ? delta[c.id] : undefined;
    if (replaced) return replaced;
    if (!Array.isArray(c.components)) return c;
    return {
      ...c,
      components: applyDelta(c.components as unknown as EvaluatedComponent[], delta) as unknown as Json,
    };
  });
}

/**
 * The rows of each section list of a tree, by list address: each row as what it shows (its bound values, by
 * address within the row), to find it again once rows moved.
 */
function sectionRows(components: Json | undefined, out = new Map<string, string[]>()): Map<string, string[]> {
  for (const c of Array.isArray(components) ? components as unknown as EvaluatedComponent[] : []) {
    if (c.type === "sectionList" && typeof c.bind === "string") {
      out.set(
        canonical(c.bind),
        childrenOf(c).map((row) => fingerprint(String(row.bind ?? ""), boundValues(row.components))),
      );
    }
    sectionRows(c.components, out);
  }
  return out;
}

/** The section list of a tree that `holds` (of its id and canonical bind). */
function listOf(
  components: Json | undefined,
  holds: (id: string, bind: string) => boolean,
): EvaluatedComponent | undefined {
  for (const c of Array.isArray(components) ? components as unknown as EvaluatedComponent[] : []) {
    if (c.type === "sectionList" && typeof c.bind === "string" && holds(c.id, canonical(c.bind))) return c;
    const list = listOf(c.components, holds);
    if (list) return list;
  }
  return undefined;
}

function boundAddresses(components: Json | undefined): string[] {
  return [...boundValues(components).keys()];
}

/** A write of this element, recognised when its feed event arrives. */
interface OwnWrite {
  /** {@link signatureOf} the addresses it writes. */
  signature: string;
  /** When to stop waiting for its event (epoch ms). */
  until: number;
}

/** The addresses of a write, canonical and sorted, as one string. */
function signatureOf(addresses: string[]): string {
  return addresses.map(canonical).sort().join("\n");
}

/** A row conflict's message, where it goes (an address as of the write's start). */
interface Conflict {
  place: string;
  message: FieldMessage;
}

/** Whether `address` lies under a row of the array at `list`. */
function inList(list: string, address: string): boolean {
  const [outer, inner] = [pathOrNull(list), pathOrNull(address)];
  return !!outer && !!inner && inner.length > outer.length && isPrefixOf(outer, inner);
}

/** The events that end a pointer's press (a window losing focus may never see the release). */
const ENDS_OF_PRESS = ["pointerup", "pointercancel", "blur"] as const;

const BLOB_PATH = /^\/models\/([^/]+)\/blobs\/([0-9a-f]+)$/;

/** Whether `c` is a region selector whose options follow another field (its `dependsOn`). */
const dependent = (c: EvaluatedComponent) =>
  c.type === "countryRegionSelector" && typeof c.dependsOn === "string";

/**
 * Choice components whose options the client resolves (`optionsPath`, `optionsExpr`, a region selector's
 * `dependsOn`), in a tree.
 */
function dynamicChoices(components: Json | undefined, out: EvaluatedComponent[] = []): EvaluatedComponent[] {
  for (const c of Array.isArray(components) ? components as unknown as EvaluatedComponent[] : []) {
    if (typeof c.optionsPath === "string" || typeof c.optionsExpr === "string" || dependent(c)) out.push(c);
    dynamicChoices(c.components, out);
  }
  return out;
}

/** Region selectors of a tree that depend on one of `addresses`. */
function dependentsOf(components: Json | undefined, addresses: Set<string>, out: EvaluatedComponent[] = []) {
  for (const c of Array.isArray(components) ? components as unknown as EvaluatedComponent[] : []) {
    if (dependent(c) && addresses.has(canonical(String(c.dependsOn)))) out.push(c);
    dependentsOf(c.components, addresses, out);
  }
  return out;
}

/** An address with wildcards as the JSONata path reading the same values (`$.tiers[*].code` → `tiers.code`). */
export function addressAsExpression(address: string): string {
  return address.replace(/^\$\.?/, "").replace(/\[\*\]/g, "") || "$";
}

/** Options from values: objects with `value` stay, anything else becomes `{value, label}`. */
function asOptions(result: Json): Json[] {
  const list = Array.isArray(result) ? result : result === null || result === undefined ? [] : [result];
  return list.map((v) =>
    v !== null && typeof v === "object" && !Array.isArray(v) && "value" in v
      ? v
      : { value: v, label: String(v) }
  );
}

/** The view renderer element. */
export class SvcView extends LitElement {
  static override styles = VIEW_STYLES;
  static override properties = {
    invoker: { attribute: false },
    feed: { attribute: false },
    modelId: { attribute: "model" },
    viewId: { attribute: "view" },
    view: { state: true },
    loadError: { state: true },
  };

  /** How the element reaches the model. */
  invoker?: Invoker;
  /** Where changes by other writers come from (optional). */
  feed?: Feed;
  modelId = "";
  /** A view id; empty for the spec's default view. */
  viewId = "";
  view: EvaluatedView | null = null;
  loadError = "";

  readonly #uid = `svc${++instances}`;
  readonly #messages: MessageMap = new Map();
  readonly #uiState = new Map<string, number>();
  readonly #images = new Map<string, string>();
  #spec: ModelSpec | null = null;
  #revision = 0;
  /** Writes of this element whose feed event is still due (their event must not trigger a reload). */
  #own: OwnWrite[] = [];
  /** The fields this element's writes under way change (a row's next write does not test them, see #changing). */
  readonly #pending = new Set<string[]>();
  #loads = 0;
  /** Loads that found rows moved by another writer (a write under way then reads the view again). */
  #reorders = 0;
  /** Views whose onOpen ran since the person last navigated or ran a handler. */
  readonly #opened = new Set<string>();
  /** Whether the shown view was closed with the element leaving the page (it opens again if it comes back). */
  #closed = false;
  /** Addresses whose control shows the model's value again in the next render (a refused removal or choice). */
  readonly #restore = new Set<string>();
  /** The keys of section list rows, by list address (see ViewContext.rowKeys). */
  readonly #rowKeys = new Map<string, number[]>();
  #lastRowKey = 0;
  /** The section list rows moves followed, for controls of an earlier render (see #context). */
  readonly #moves = new RowMoveLog();
  /** Writes under way (a wizard step checks its fields once they are done). */
  readonly #writing = new Set<Promise<unknown>>();
  /** This element's Removes under way, by list address (canonical): the person's writes below them wait. */
  readonly #removes = new Map<Promise<unknown>, string>();
  /**
   * The lists (canonical) with Removes of this element under way, by count, each until its answer has shown: a
   * render showing the row gone (the answer's, or a reload of another writer's commit that came first) hands
   * the Remove's focus on (focus_keeper.ts). Before, the mark came with the answer and went with any view
   * shown, so such a reload showed the person's own removal as another writer's.
   */
  readonly #ownRemovals = new Map<string, number>();
  /** The messages a step check placed: the next check, or a refresh of the view, works them out again. */
  readonly #placed = new WeakSet<FieldMessage>();
  /** The step whose check placed messages (a refresh of the view checks it again). */
  #checked?: string;
  /** The view a navigation of this element is loading (`svc-navigate` once it shows). */
  #navigatingTo?: string;
  #unsubscribe?: () => void;
  #refreshTimer?: ReturnType<typeof setTimeout>;
  /** Pointers pressing a button of the view: renders wait for their release (see scheduleUpdate). */
  readonly #pressed = new Set<number>();
  #released: Promise<void> = Promise.resolve();
  #release = () => {};

  constructor() {
    super();
    this.addEventListener("pointerdown", (event) => this.#press(event));
  }

  /** The messages currently shown, by address (`""`: the form). */
  get messages(): ReadonlyMap<string, FieldMessage[]> {
    return this.#messages;
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    for (const url of this.#images.values()) URL.revokeObjectURL(url);
    this.#images.clear();
    // Taken out of the page, the view closes; moved (out and back in at once), it stays open.
    queueMicrotask(() => {
      const view = this.view;
      if (this.isConnected || !view || this.#closed) return;
      this.#closed = true;
      void this.#handler(view.onClose, false);
    });
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (!this.hasUpdated) return;
    this.#subscribe();
    // Closed by a removal, it opens again (onOpen runs).
    if (this.#closed) this.#opened.clear();
    // Put back after a removal: what changed meanwhile was not heard.
    void this.reload();
  }

  /**
   * Holds renders while a pointer presses a button of the view. The press blurs the field being edited, whose
   * write can commit before the release; rendering its result then (a message gone, a field hidden) would
   * move the button under the pointer, and its click would be lost.
   */
  protected override async scheduleUpdate(): Promise<void> {
    while (this.#pressed.size) await this.#released;
    super.scheduleUpdate();
  }

  #press(event: PointerEvent): void {
    // Only the main button on a button: a moved button loses its click, while other mouse buttons and
    // controls (a select's list) may open a popup that swallows the release.
    if (event.button !== 0 || !event.composedPath().some((target) => target instanceof HTMLButtonElement)) {
      return;
    }
    if (!this.#pressed.size) this.#released = new Promise((resolve) => this.#release = resolve);
    this.#pressed.add(event.pointerId);
    const release = this.#release;
    const end = (e: Event) => {
      if (e instanceof PointerEvent ? e.pointerId !== event.pointerId : e.target !== globalThis) return;
      for (const type of ENDS_OF_PRESS) globalThis.removeEventListener(type, end, true);
      this.#pressed.delete(event.pointerId);
      // After the click the release makes: it is dispatched in the same task.
      if (!this.#pressed.size) setTimeout(release, 0);
    };
    for (const type of ENDS_OF_PRESS) globalThis.addEventListener(type, end, true);
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has("modelId") || changed.has("invoker")) {
      const spec = this.#spec;
      // Another model (or the same id elsewhere) has its own spec: read on the next load.
      this.#spec = null;
      const shown = this.view;
      const invoker = (changed.has("invoker") ? changed.get("invoker") : this.invoker) as Invoker | undefined;
      const left = changed.get("modelId") as string | undefined;
      if (left && shown?.modelId === left && spec && invoker && !this.#closed) {
        void this.#runOnModel(shown.onClose, invoker, left, spec);
      }
    }
    // The model changed: a field a check said "is required" of may be required no more, or hidden.
    if (changed.has("view") && this.#checked !== undefined) this.#check(this.#checked);
  }

  /** Renders, keeping the person's place when rows moved (focus_keeper.ts). */
  protected override update(changed: PropertyValues): void {
    const shown = this.view?.components as unknown as Json;
    const listAt = (list: HTMLElement) => listOf(shown, (id) => id === list.dataset.component);
    const kept = keepFocus(this.renderRoot as ShadowRoot, (list) => {
      const at = listAt(list)?.bind;
      return typeof at === "string" && this.#ownRemovals.has(canonical(at));
    });
    super.update(changed);
    const lost = kept();
    // Another writer removed the row the person was typing in, or whose Remove they were on: the list says so.
    const list = lost && (lost.edited || lost.removal) ? listAt(lost.list) : undefined;
    if (!list) return;
    this.#tell(canonical(String(list.bind)), [{
      text: lost?.edited ? ROW_CHANGED : ROW_REMOVED,
      severity: "warning",
    }]);
    this.requestUpdate();
  }

  protected override updated(changed: PropertyValues): void {
    this.#restore.clear();
    if (changed.has("invoker") || changed.has("modelId") || changed.has("viewId")) void this.reload();
    if (changed.has("feed") || changed.has("modelId")) this.#subscribe();
  }

  #subscribe(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = this.feed && this.modelId
      ? this.feed.subscribe(this.modelId, (event) => {
        if (event.kind === "deleted") {
          // A load under way, or due, would show the deleted model again.
          this.#loads++;
          clearTimeout(this.#refreshTimer);
          // Created again, the id may have another spec.
          this.#spec = null;
          this.view = null;
          this.loadError = goneMessage(event);
          return;
        }
        // Every commit's caller effects, this element's own writes' too (they come through the feed once).
        if (event.kind === "mutation") {
          for (const effect of event.dispatchedEffects) {
            this.#emit("svc-effect", { modelId: this.modelId, ...effect });
          }
        }
        if (event.kind === "spec-evolved" || !this.#isOwn(event.mutatedPaths)) {
          this.#scheduleRefresh(event.kind === "spec-evolved");
        }
      })
      : undefined;
  }

  /** Whether a mutation event is one of this element's own writes (consumes its entry). */
  #isOwn(mutatedPaths: string[]): boolean {
    const now = Date.now();
    this.#own = this.#own.filter((o) => o.until > now);
    const index = this.#own.findIndex((o) => o.signature === signatureOf(mutatedPaths));
    if (index < 0) return false;
    this.#own.splice(index, 1);
    return true;
  }

  #scheduleRefresh(withSpec: boolean): void {
    if (withSpec) this.#spec = null;
    clearTimeout(this.#refreshTimer);
    this.#refreshTimer = setTimeout(() => void this.reload(), 20);
  }

  /** Reads the spec (when not known) and the view again. */
  async reload(): Promise<void> {
    // Out of the page the view stays closed (it reloads when put back): before, a refresh falling due just
    // after a removal opened it again there, so put back it did not open (no onOpen).
    if (!this.invoker || !this.modelId || !this.isConnected) return;
    const load = ++this.#loads;
    try {
      const spec = this.#spec ?? await this.invoker.invoke(operations.getSpec, { id: this.modelId });
      const view = await this.invoker.invoke(operations.getView, {
        id: this.modelId,
        viewId: this.viewId || undefined,
      });
      if (load !== this.#loads) return;
      this.#spec = spec;
      const resolved = await this.#resolveOptions(view.components);
      if (load !== this.#loads || !this.isConnected) return;
      const shown = this.view;
      const sameModel = shown?.modelId === view.modelId;
      const opened = this.#closed || !sameModel || shown?.viewId !== view.viewId;
      // The element's writes go to its model now: a view of the model it showed before is not closed.
      const left = opened && !this.#closed && sameModel ? shown : null;
      this.#closed = false;
      // Another model's views open afresh (no chain of onOpen navigations runs across models).
      if (!sameModel) this.#opened.clear();
      if (opened) {
        // A view opens without the messages of the one left, even where it binds the same fields.
        this.#messages.clear();
        this.#restore.clear();
        this.#rowKeys.clear();
        this.#checked = undefined;
        // Steps and tabs are kept by component id, which another model's views may reuse.
        if (!sameModel) this.#uiState.clear();
      }
      if (!opened) {
        const before = boundValues(shown!.components as unknown as Json);
        this.#followChanges(shown!.components, resolved, before);
        this.#forgetChanged(before, resolved);
      }
      this.view = { ...view, components: resolved };
      this.loadError = "";
      this.#revision++;
      const navigated = this.#navigatingTo === view.viewId;
      // Every change of the view shown is told, the host's (a new `view`) as the person's, so a page following
      // the view (in its address, say) hears of each; a first view, or another model's, is no navigation.
      if (navigated || left) this.#emit("svc-navigate", { modelId: this.modelId, viewId: view.viewId });
      // The control the person used went with the view left: they go on from the new view's title.
      if (navigated && opened) this.#focusSoon(`${this.#uid}--title`);
      this.#navigatingTo = undefined;
      // The view left closes first; where to go is decided already, so its onClose's navigate is not followed.
      if (left) await this.#handler(left.onClose, false);
      // A view's onOpen runs each time it is shown, once in a chain of onOpen navigations (no loop).
      if (opened && view.onOpen && !this.#opened.has(view.viewId)) {
        this.#opened.add(view.viewId);
        await this.#handler(view.onOpen);
      }
    } catch (err) {
      if (load !== this.#loads) return;
      const shown = this.view;
      if (shown && this.#navigatingTo !== undefined) {
        // A view that cannot be shown keeps the current one, the reason above it.
        this.#navigatingTo = undefined;
        this.#messages.set("", [{ text: (err as Error).message, severity: "error" }]);
        this.viewId = shown.viewId;
        this.requestUpdate();
        return;
      }
      this.view = null;
      this.loadError = (err as Error).message;
    }
  }

  /**
   * Moves what the element keeps by address (messages, row keys, the `values` shown before) with the section
   * list rows another writer removed, added or reordered, each row found again by what it shows: outer lists
   * first, whose moves carry their nested lists along.
   */
  #followChanges(
    before: EvaluatedComponent[],
    after: EvaluatedComponent[],
    values: Map<string, Json | undefined>,
  ): void {
    const count = this.#moves.count;
    followLists(
      sectionRows(before as unknown as Json),
      sectionRows(after as unknown as Json),
      // A nested list's id is that of the rows' new indices: its outer list's move renamed its UI state so.
      (list, move) => this.#follow(list, move, after, [values]),
      // A row this element is writing may show its write already, or not yet.
      () => [...this.#pending].flat().map(canonical),
    );
    if (this.#moves.count !== count) this.#reorders++;
  }

  /**
   * Moves messages, row keys, UI state (by the id `tree` gives the list) and the maps `also` with the rows of
   * the array at `list`, and notes the move.
   */
  #follow(list: string, move: RowMove, tree: EvaluatedComponent[], also: Map<string, unknown>[] = []): void {
    for (const map of [this.#messages, this.#rowKeys, ...also]) followRows(map, list, move);
    const id = listOf(tree as unknown as Json, (_, bind) => bind === canonical(list))?.id;
    if (id !== undefined) followIds(this.#uiState, id, move);
    const keys = this.#rowKeys.get(canonical(list));
    if (keys) this.#rowKeys.set(canonical(list), followKeys(keys, move, () => ++this.#lastRowKey));
    for (const fields of this.#pending) {
      fields.splice(0, fields.length, ...fields.flatMap((a) => followAddress(a, list, move) ?? []));
    }
    this.#moves.record(list, move);
  }

  /**
   * Drops the messages of the fields whose value another writer changed: they were about the value the
   * field held before (a refused write of this element, a rule it broke), which is gone.
   */
  #forgetChanged(old: Map<string, Json | undefined>, after: EvaluatedComponent[]): void {
    for (const [address, value] of boundValues(after as unknown as Json)) {
      if (old.has(address) && !jsonEqual(old.get(address), value)) this.#messages.delete(canonical(address));
    }
  }

  /**
   * Components with the options of `optionsPath` / `optionsExpr` choices filled in: evaluated by the
   * engine's expression tools (a local operation) against the merged state. Unchanged when there are none.
   */
  async #resolveOptions(components: EvaluatedComponent[]): Promise<EvaluatedComponent[]> {
    const dynamic = dynamicChoices(components as unknown as Json);
    if (!dynamic.length || !this.invoker) return components;
    const invoker = this.invoker;
    const state = await invoker.invoke(operations.getState, { id: this.modelId });
    const options: Record<string, EvaluatedComponent> = {};
    for (const c of dynamic) {
      if (dependent(c)) {
        const path = pathOrNull(c.dependsOn);
        // The region selector filters its options by this value (entry_bounds.ts regionOptions).
        const chosen = path ? getAt(state, path) : undefined;
        setMember(options, c.id, { ...c, dependsOnValue: chosen ?? null });
        continue;
      }
      const expr = typeof c.optionsExpr === "string"
        ? c.optionsExpr
        : addressAsExpression(String(c.optionsPath));
      try {
        setMember(options, c.id, { ...c, options: asOptions(await this.#evaluate(expr, state)) });
      } catch (err) {
        setMember(options, c.id, { ...c, error: `options: ${(err as Error).message}` });
      }
    }
    return applyDelta(components, options);
  }

  /** Adds `list` to the messages shown at `address` (canonical). */
  #tell(address: string, list: FieldMessage[]): void {
    this.#messages.set(address, [...this.#messages.get(address) ?? [], ...list]);
  }

  /** Whether the element left `view` for another view or model (shown, or being loaded) since it showed. */
  #left(view: EvaluatedView): boolean {
    return this.view?.modelId !== view.modelId || this.modelId !== view.modelId ||
      this.view?.viewId !== view.viewId || (this.viewId !== "" && this.viewId !== view.viewId);
  }

  /**
   * Writes `mutations` through the invoker and shows the result: the view delta, flags, messages. When it is
   * refused, `goesBack` (a removal, a choice) puts the kept values back in the fields; refused as its row
   * changed meanwhile, the person is told at the first field written, or as `conflict` says. Resolves to
   * whether it was written.
   */
  async #commit(
    written: string[],
    run: (viewId: string, expect: (addresses: string[]) => void) => Promise<WriteResult>,
    onChange?: Json,
    goesBack = false,
    conflict?: Conflict,
  ): Promise<boolean> {
    const [invoker, view, spec] = [this.invoker, this.view, this.#spec];
    if (!invoker || !view) return false;
    const mine: OwnWrite[] = [];
    const pending: string[] = [];
    const expect = (addresses: string[]) => {
      const entry = { signature: signatureOf(addresses), until: Date.now() + 10_000 };
      mine.push(entry);
      this.#own.push(entry);
      // A removed row is not a field whose value changes: a write to it must still fail.
      pending.push(...addresses.filter((a) => !/\]$/.test(a)));
    };
    this.#pending.add(pending);
    // Rows another writer moves while the write is under way: the answer's addresses are of the rows before.
    const [seen, reloads, revision] = [this.#moves.count, this.#reorders, this.#revision];
    const now = (addresses: string[]) =>
      this.#reorders === reloads ? addresses : addresses.flatMap((a) => this.#moves.follow(a, seen) ?? []);
    let done!: () => void;
    const writing = new Promise<void>((resolve) => done = resolve);
    this.#writing.add(writing);
    for (const address of written) this.#messages.delete(canonical(address));
    this.#messages.delete("");
    for (const [address, list] of this.#messages) {
      const errors = list.filter((m) => m.severity === "error");
      if (errors.length) this.#messages.set(address, errors);
      else this.#messages.delete(address);
    }
    try {
      const result = await run(view.viewId, expect);
      const mutated = now(result.mutatedPaths);
      // Fields this write changed hold their new, accepted values: their old errors no longer apply.
      for (const address of mutated) this.#messages.delete(canonical(address));
      // The delta's components have the ids of the rows before, or belong to the view the person left (its
      // ids may name other components here), or are older than what the view shows since (another write's
      // answer or a reload came first: the delta would show values of before, a row's next write would test
      // them): the view is read again instead.
      const left = this.#left(view);
      if (this.#reorders !== reloads || left || this.#revision !== revision) await this.reload();
      else if (this.view && result.viewDelta) {
        const components = applyDelta(this.view.components, result.viewDelta);
        this.view = { ...this.view, components: await this.#resolveOptions(components) };
      }
      const bound = boundAddresses(this.view?.components as unknown as Json);
      const flagged = left ? [] : result.flaggedConstraints;
      placeConstraints(this.#messages, flagged, this.#spec, now(written), bound, "warning", (a) => now([a]));
      this.#revision++;
      // Of the model written: the element may show another one by now.
      this.#emit("svc-commit", { modelId: view.modelId, viewId: view.viewId, result });
      // Switched to another model meanwhile, the element leaves that one's regions alone, and the write's
      // onChange is the written model's.
      if (this.modelId !== view.modelId || this.invoker !== invoker) {
        await this.#runOnModel(onChange, invoker, view.modelId, spec);
        return true;
      }
      this.#clearStaleRegions(mutated);
      // Its fields hold their new values now: a row's onChange tests them (#changing).
      this.#pending.delete(pending);
      // Once the person left the view (for another of the model), its onChange would take them back.
      if (onChange !== undefined && onChange !== null && !this.#left(view)) {
        // A row field's onChange belongs to the field's row, wherever it is now (this element's Removes too).
        const [field, row] = [
          written[0],
          written[0] && rowOf(view.components as unknown as Json, written[0]),
        ];
        const follow = (address: string) => this.#moves.follow(address, seen) ?? undefined;
        if (!row) await this.#handler(onChange);
        else await this.#rowHandler(onChange, { row, place: field }, follow(row), follow(field));
      }
      return true;
    } catch (err) {
      // A refused write sends no event.
      this.#own = this.#own.filter((o) => !mine.includes(o));
      // Its row changed meanwhile (nothing was written): the view is read again, its rows follow the change.
      const rowChanged = isRowConflict(err) && !this.#left(view);
      if (rowChanged) await this.reload();
      const bound = boundAddresses(this.view?.components as unknown as Json);
      // The fields show the values the model kept again: the reason is a warning, it holds no wizard step.
      const shown = now(written);
      if (goesBack) shown.forEach((address) => this.#restore.add(canonical(address)));
      const severity = goesBack ? "warning" : "error";
      // Once the element left the view (or model), its fields are gone: their messages are not the new view's.
      const told = conflict ?? { place: written[0] ?? "", message: { text: ROW_CHANGED, severity } };
      const messages = this.#left(view)
        ? []
        : rowChanged
        ? new Map<string, FieldMessage[]>([[canonical(now([told.place])[0] ?? ""), [told.message]]])
        : messagesOfError(err, this.#spec, shown, bound, severity, (a) => now([a]));
      for (const [address, list] of messages) this.#tell(address, list);
      this.#emit("svc-error", { modelId: view.modelId, message: (err as Error).message });
      return false;
    } finally {
      this.#pending.delete(pending);
      this.#writing.delete(writing);
      done();
      this.requestUpdate();
    }
  }

  /**
   * After this element's write changed the field a region selector depends on (its country), removes the
   * region when the country's options no longer hold it: the region belonged to the country chosen before.
   * Another writer's change is that writer's to follow up, so a page with many views does not remove it
   * many times.
   */
  #clearStaleRegions(mutatedPaths: string[]): void {
    const changed = new Set(mutatedPaths.map(canonical));
    for (const c of dependentsOf(this.view?.components as unknown as Json, changed)) {
      const offered = regionOptions(c).map((o) =>
        o !== null && typeof o === "object" && !Array.isArray(o) ? o.value ?? null : o
      );
      if (
        typeof c.bind === "string" && c.value !== undefined && !offered.some((v) => jsonEqual(v, c.value))
      ) {
        this.#remove(c.bind);
      }
    }
  }

  /** {@link ViewContext.checkStep}, once the writes under way are done. */
  async #checkStep(componentId: string): Promise<boolean> {
    while (this.#writing.size) await Promise.all(this.#writing);
    const held = this.#check(componentId);
    this.requestUpdate();
    return !held;
  }

  /** Checks the step `componentId` of the view shown: the messages of earlier checks go, this one's show. */
  #check(componentId: string): boolean {
    for (const [address, list] of this.#messages) {
      const kept = list.filter((m) => !this.#placed.has(m));
      if (!kept.length) this.#messages.delete(address);
      else if (kept.length < list.length) this.#messages.set(address, kept);
    }
    const step = this.view?.components.filter((c) => c.id === componentId) ?? [];
    const { held, added } = checkStep(step, (address) => this.#messages.get(canonical(address)) ?? []);
    for (const [address, list] of added) {
      for (const message of list) this.#placed.add(message);
      this.#tell(address, list);
    }
    this.#checked = added.size ? componentId : undefined;
    return held;
  }

  /**
   * Evaluates an expression of the view (choices, a handler's mutations) over
   * `state` as the model's own expressions are: with `$const` and the library's
   * exports, compiled here from the model's spec (before the spec is read:
   * through `evalExpression` with the constants the element knows).
   */
  async #evaluate(expr: string, state: Json, spec = this.#spec, invoker = this.invoker!): Promise<Json> {
    if (spec) return (await viewAuthoring().evalInModel(spec, expr, state)).result;
    const { result } = await invoker.invoke(operations.evalExpression, { expr, input: state });
    return result;
  }

  /** What a handler's `mutations` expression asks of model `id` (of `spec`, through `invoker`) now. */
  async #handlerMutations(
    expr: string,
    invoker: Invoker,
    id: string,
    spec = this.#spec,
  ): Promise<Record<string, Json>> {
    const state = await invoker.invoke(operations.getState, { id });
    const result = await this.#evaluate(expr, state, spec, invoker);
    if (result === null || typeof result !== "object" || Array.isArray(result)) {
      throw new Error(`The handler's mutations did not evaluate to a map of address to value`);
    }
    return result;
  }

  /**
   * Runs `handler` of model `id`, which the element showed before it was switched to another model (the
   * `onClose` of the view left, the `onChange` of a write answered since): only its mutations run, on that
   * model (through the invoker that reached it, with its spec's constants).
   */
  async #runOnModel(
    handler: Json | undefined,
    invoker: Invoker,
    id: string,
    spec: ModelSpec | null,
  ): Promise<void> {
    if (!handler || typeof handler !== "object" || Array.isArray(handler)) return;
    if (typeof handler.mutations !== "string") return;
    try {
      const mutations = await this.#handlerMutations(handler.mutations, invoker, id, spec);
      await invoker.invoke(operations.mutate, { id, mutations });
    } catch (err) {
      this.#emit("svc-error", { modelId: id, message: (err as Error).message });
    }
  }

  #emit(type: string, detail: unknown): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  /**
   * Runs an event handler: its `mutations` (JSONata over the state) as one write, then `navigate` if `go` and
   * the write was made. A section list row's handler (`at`): its writes into one row test that row first,
   * as the person's own do (another writer's move meanwhile makes them a conflict, told at `at.place`).
   */
  async #handler(handler: Json | undefined, go = true, at?: HandlerRow): Promise<void> {
    if (!handler || typeof handler !== "object" || Array.isArray(handler) || !this.invoker) return;
    const invoker = this.invoker;
    if (typeof handler.mutations === "string") {
      const [expr, id] = [handler.mutations, this.modelId];
      // The row is tested as shown now, as for a field's write (#set).
      const write = this.#writer();
      const conflict = at &&
        { place: at.place, message: { text: ROW_CHANGED_ACTION, severity: "warning" as const } };
      const written = await this.#commit(
        [],
        async (viewId, expect) => {
          const mutations = await this.#handlerMutations(expr, invoker, id);
          expect(Object.keys(mutations));
          return at
            ? await write(viewId, mutations)
            : await invoker.invoke(operations.mutate, { id, mutations, viewId });
        },
        undefined,
        false,
        conflict,
      );
      if (!written) return;
    }
    if (go && typeof handler.navigate === "string") this.#navigate(handler.navigate);
  }

  /**
   * Runs `handler` of the section list row `at.row` (as its control showed it), which is at `row` now (and its
   * place at `place`; `undefined`: gone). Its mutations name rows by index, as they were then: once the row
   * moved, they would write another row, so the handler does not run and the person is told; once the row is
   * gone, it does not run either.
   */
  async #rowHandler(handler: Json | undefined, at: HandlerRow, row?: string, place?: string): Promise<void> {
    if (row === undefined) return;
    const writes = handler !== null && typeof handler === "object" && !Array.isArray(handler) &&
      typeof handler.mutations === "string";
    if (!writes || canonical(row) === canonical(at.row)) {
      return await this.#handler(handler, true, { row, place: place ?? row });
    }
    if (place === undefined) return;
    this.#tell(canonical(place), [{ text: ROW_CHANGED_ACTION, severity: "warning" }]);
    this.requestUpdate();
  }

  /**
   * Runs `act`, a write of the person at `address` (as shown now), once this element's Removes under way in a
   * list holding it are answered: the rows below a Remove move up then, and the write follows its row (sent
   * before, it would test its row at the old index, a conflict).
   */
  #afterRemoves(address: string, act: () => void): void {
    const removes = [...this.#removes].filter(([, list]) => inList(list, address)).map(([remove]) => remove);
    if (!removes.length) return act();
    // A wizard step checks its fields once this write is done too.
    const waiting = Promise.all(removes).then(act);
    this.#writing.add(waiting);
    void waiting.finally(() => this.#writing.delete(waiting));
  }

  #navigate(viewId: string): void {
    if (viewId === this.view?.viewId) return;
    this.#navigatingTo = viewId;
    this.viewId = viewId;
  }

  /**
   * Removes the value of an emptied field (JSON Patch `remove`: an optional field then has none, a required
   * one is refused, saying so, and shows its value again). A field that has no value has nothing to remove:
   * its messages go.
   */
  #remove(address: string, onChange?: Json): void {
    const pointer = pointerOf(address);
    const shown = boundValues(this.view?.components as unknown as Json);
    if (pointer === null || shown.get(canonical(address)) === undefined) {
      this.#messages.delete(canonical(address));
      this.requestUpdate();
      return;
    }
    const patch = this.#guarded(address, [{ op: "remove", path: pointer }]);
    void this.#commit(
      [address],
      async (viewId, expect) => {
        expect([address]);
        return await this.invoker!.invoke(operations.patch, {
          id: this.modelId,
          patch: await patch(),
          viewId,
        });
      },
      onChange,
      true,
    );
  }

  /**
   * What may change without a row changing, so a row's write does not test it: derived members (the model
   * works them out) and the fields of this element's writes under way (its next write may be applied after
   * them).
   */
  #changing(): string[] {
    return [...(this.#spec?.derivations ?? []).map((d) => d.path), ...[...this.#pending].flat()];
  }

  /**
   * Writes `value` at `address` (of the view shown now) as the write `viewId` of a commit: in a section list
   * row, a patch that first tests the row is still the one shown (rows another writer moved meanwhile fail
   * it, instead of the write landing on another row); elsewhere, a mutation.
   */
  #set(address: string): (viewId: string, value: Json) => Promise<WriteResult> {
    const write = this.#writer();
    return (viewId, value) => write(viewId, { [address]: value });
  }

  /**
   * Writes `mutations` (of the view shown now) as the write `viewId` of a commit: when they all fall in one
   * section list row, as one patch that first tests the row is still the one shown ({@link rowWrites});
   * otherwise as a mutation.
   */
  #writer(): (viewId: string, mutations: Record<string, Json>) => Promise<WriteResult> {
    const [invoker, id, components, changing] = [
      this.invoker!,
      this.modelId,
      this.view?.components as unknown as Json,
      this.#changing(),
    ];
    const read = readerOf(invoker, id);
    return async (viewId, mutations) => {
      const patch = await rowWrites(components, Object.entries(mutations), changing, read);
      return patch
        ? invoker.invoke(operations.patch, { id, patch, viewId })
        : invoker.invoke(operations.mutate, { id, mutations, viewId });
    };
  }

  /**
   * `ops` preceded by the tests that the row holding `address` is still the one shown now (`own`: what they
   * write), once called.
   */
  #guarded(address: string, ops: RowOp[], own: string[] = [address]): () => Promise<RowOp[]> {
    const [components, changing] = [this.view?.components as unknown as Json, this.#changing()];
    const read = readerOf(this.invoker!, this.modelId);
    return () => rowPatch(components, address, ops, own, changing, read);
  }

  /** Removes row `shownIndex` of the list at `shownList`, of a render that saw `seen` row moves (see #context). */
  #removeItem(shownList: string, shownIndex: number, seen: number): void {
    const row = this.#moves.followRow(shownList, shownIndex, seen);
    if (!row || !this.invoker) return;
    const [invoker, id, { list, index }] = [this.invoker, this.modelId, row];
    // The row's own values are what says it is still the row shown.
    const patch = this.#guarded(
      `${list}[${index}]`,
      [{ op: "remove", path: `${pointerOf(list)}/${index}` }],
      [],
    );
    const removing = this.#commit([list], async (viewId, expect) => {
      expect([`${list}[${index}]`]);
      const reloads = this.#reorders;
      const result = await invoker.invoke(operations.patch, { id, patch: await patch(), viewId });
      // The rows below move up with their keys, so their controls (an entry the model refused) go along.
      // When another writer's reload followed rows meanwhile, it may have followed this removal too: the
      // commit reads the view again and follows what the view still shows, so each move applies once.
      if (this.#reorders === reloads) this.#follow(list, removal(index), this.view?.components ?? []);
      return result;
    });
    const key = canonical(list);
    this.#removes.set(removing, key);
    this.#ownRemovals.set(key, (this.#ownRemovals.get(key) ?? 0) + 1);
    void removing.finally(async () => {
      this.#removes.delete(removing);
      await this.updateComplete;
      const left = this.#ownRemovals.get(key)! - 1;
      if (left) this.#ownRemovals.set(key, left);
      else this.#ownRemovals.delete(key);
    });
  }

  #imageUrl(src: string): string | undefined {
    const match = BLOB_PATH.exec(src);
    if (!match || !this.invoker) return src;
    const cached = this.#images.get(src);
    if (cached !== undefined) return cached || undefined;
    this.#images.set(src, "");
    this.invoker.invoke(operations.getModelBlob, { id: decodeURIComponent(match[1]), blobId: match[2] }).then(
      (blob) => {
        this.#images.set(
          src,
          URL.createObjectURL(new Blob([blob.bytes as Uint8Array<ArrayBuffer>], { type: blob.mediaType })),
        );
        this.requestUpdate();
      },
      () => this.#images.delete(src),
    );
    return undefined;
  }

  #context(view: EvaluatedView): ViewContext {
    const invoker = this.invoker!;
    const id = this.modelId;
    // Controls of this render may act after rows moved (a render held while a button is pressed, a control
    // taken out of the page): their addresses follow the rows, and a row that is gone writes nothing.
    const seen = this.#moves.count;
    const now = (address: string) => this.#moves.follow(address, seen);
    const ctx: ViewContext = {
      invoker,
      modelId: id,
      viewId: view.viewId,
      revision: this.#revision,
      // Component ids never hold "--" here (other characters become "_"), so the title's id stays unique.
      domId: (componentId, suffix) =>
        `${this.#uid}-${componentId.replace(/[^A-Za-z0-9_]/g, "_")}${suffix ? `-${suffix}` : ""}`,
      messages: (address) => this.#messages.get(address === undefined ? "\u0000" : canonical(address)) ?? [],
      allMessages: () => [...this.#messages],
      // A write below this element's Remove under way waits for it (#afterRemoves): its address follows then.
      write: (shown, value, onChange, choice) =>
        this.#afterRemoves(shown, () => {
          const address = now(shown);
          if (address === null) return;
          if (value === undefined) return this.#remove(address, onChange);
          const set = this.#set(address);
          void this.#commit(
            [address],
            (viewId, expect) => {
              expect([address]);
              return set(viewId, value);
            },
            onChange,
            choice,
          );
        }),
      patch: (ops, shown) =>
        this.#afterRemoves(shown, () => {
          const address = now(shown);
          const [from, to] = [pointerOf(shown), address === null ? null : pointerOf(address)];
          if (address === null || from === null || to === null) return;
          const patch = this.#guarded(
            address,
            ops.map((op) => op.path.startsWith(from) ? { ...op, path: to + op.path.slice(from.length) } : op),
          );
          void this.#commit(
            [address],
            async (viewId) => await invoker.invoke(operations.patch, { id, patch: await patch(), viewId }),
          );
        }),
      removeItem: (shownList, shownIndex) =>
        this.#afterRemoves(
          `${shownList}[${shownIndex}]`,
          () => this.#removeItem(shownList, shownIndex, seen),
        ),
      rowKeys: (list, count) => {
        const keys = this.#rowKeys.get(canonical(list)) ?? [];
        // Rows not followed (#followChanges), as in a view just opened: the last ones come or go.
        keys.length = Math.min(keys.length, count);
        while (keys.length < count) keys.push(++this.#lastRowKey);
        this.#rowKeys.set(canonical(list), keys);
        return keys;
      },
      refuse: (shown, texts, severity) => {
        const address = now(shown);
        if (address === null) return;
        this.#messages.set(canonical(address), texts.map((text) => ({ text, severity })));
        this.requestUpdate();
      },
      restores: (address) => typeof address === "string" && this.#restore.has(canonical(address)),
      checkStep: (componentId) => this.#checkStep(componentId),
      runHandler: (handler, at) => {
        if (at === undefined) {
          this.#opened.clear();
          return void this.#handler(handler);
        }
        if (now(at.row) === null) return;
        this.#opened.clear();
        this.#afterRemoves(at.row, () => {
          const follow = (address: string) => now(address) ?? undefined;
          void this.#rowHandler(handler, at, follow(at.row), follow(at.place));
        });
      },
      navigate: (viewId) => {
        this.#opened.clear();
        this.#navigate(viewId);
      },
      upload: (shown, files, multiple) =>
        this.#afterRemoves(shown, () => {
          const address = now(shown);
          if (address === null) return;
          // The files take a while to store. The row is tested as shown once they are, so the person's edits
          // of it meanwhile count; but as shown now when rows moved meanwhile, so the test fails at the old index.
          const [moves, early] = [this.#moves.count, this.#set(address)];
          void this.#commit([address], async (viewId, expect) => {
            const refs = [];
            for (const file of files) {
              const bytes = new Uint8Array(await file.arrayBuffer());
              refs.push(
                await invoker.invoke(operations.uploadBlob, { bytes, mediaType: file.type || undefined }),
              );
            }
            const value = (multiple ? refs : refs[0]) as unknown as Json;
            const set = this.#moves.count === moves ? this.#set(address) : early;
            expect([address]);
            return await set(viewId, value);
          });
        }),
      imageUrl: (src) => this.#imageUrl(src),
      uiState: this.#uiState,
      requestUpdate: () => this.requestUpdate(),
      focus: (domId) => this.#focusSoon(domId),
      render(components) {
        return renderComponents(components, this);
      },
    };
    return ctx;
  }

  /** Focuses the element `domId` of the next render. */
  #focusSoon(domId: string): void {
    void this.updateComplete.then(() => (this.renderRoot as ShadowRoot).getElementById(domId)?.focus());
  }

  protected override render(): unknown {
    if (this.loadError) return html`<div class="view-error" role="alert">${this.loadError}</div>`;
    const view = this.view;
    if (!view) return html`<p class="empty">Loading the view…</p>`;
    const form = this.#messages.get("") ?? [];
    const grid = view.layout === "grid";
    const columns = typeof view.columns === "number" ? view.columns : 2;
    // Another view gets its own controls: a reused input would keep what was typed into the view left.
    return keyed(
      `${view.modelId}\n${view.viewId}`,
      html`<section class="view" aria-labelledby=${`${this.#uid}--title`}>
      <h2 id=${`${this.#uid}--title`} tabindex="-1">${view.title}</h2>
      ${
        form.length
          ? html`
            <div class="form-messages" role="alert">
              <ul>${form.map((m) => html`<li class=${m.severity}>${m.text}</li>`)}</ul>
            </div>
          `
          : nothing
      }
      <div class="view-body ${grid ? "layout-grid" : `layout-${view.layout}`}"
        style=${cssomStyle(grid ? { gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` } : {})}>
        ${viewBody(view, this.#context(view))}
      </div>
    </section>`,
    );
  }
}

if (!customElements.get("svc-view")) customElements.define("svc-view", SvcView);
