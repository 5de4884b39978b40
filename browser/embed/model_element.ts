/// <reference lib="dom" />
/**
 * `<svc-model src="spec.json" view="main">`: runs a ModelSpec in the page and
 * renders its view. The spec comes from `src` (a URL of ModelSpec JSON) or the
 * `spec` property; `view` picks a view (default: the spec's default view; one
 * the model does not have shows the default view under a line naming the views it has, also fired as an
 * `svc-error` `{modelId, message}` of the element).
 * State lives in IndexedDB keyed by the spec's id, so a reload shows the last
 * state. Events of the inner `<svc-view>` (`svc-commit`, `svc-effect`, `svc-error`,
 * `svc-navigate`) bubble out of the element. A spec that cannot start is an
 * alert (`problem`) and an `svc-error` `{modelId, message}` of the element; when
 * the model stored under its id was kept (a refused change of spec), that model
 * runs under the alert, as the alert says (its default view, saying so, when `view` names a view only
 * the refused spec has).
 *
 * @module
 */
import { css, html, LitElement, nothing, type PropertyValues, type TemplateResult } from "lit";
import { DEFAULT_VERSION, type Invoker, type ModelSpec, operations } from "../../engine/mod.ts";
import "../elements/view_element.ts";
import { open, type PageConnection, pageConnection, StoredModelKept } from "./api.ts";

/**
 * Why a start failed, for the person: a page whose Content-Security-Policy
 * forbids compiling code (`EvalError`) is told which source to allow.
 */
function startProblem(err: Error): string {
  if (!(err instanceof EvalError)) return err.message;
  return "this page's Content-Security-Policy must allow 'unsafe-eval' in script-src (and not require " +
    "Trusted Types for scripts): the model's JSON Schemas and expressions are compiled to functions. " +
    `The browser said: ${err.message}`;
}

/** Why the fetch of a spec failed, beyond the browser's bare "Failed to fetch": what can stop one. */
const UNREACHED =
  "offline, the server not there, another origin not allowing this page (CORS), or this page's " +
  "Content-Security-Policy connect-src not allowing it";

/**
 * The ModelSpec JSON at `src`. A failure names `src` and says why (before, a fetch refused or a page
 * served in its place said only "Failed to fetch" or JSON.parse's "Unexpected token").
 */
async function fetchSpec(src: string, signal: AbortSignal): Promise<ModelSpec> {
  const failed = (why: string) => new Error(`could not load ${src}: ${why}`);
  let response: Response;
  try {
    response = await fetch(new URL(src, document.baseURI), { signal });
  } catch (err) {
    throw signal.aborted ? err : failed(`${(err as Error).message} (${UNREACHED})`);
  }
  if (!response.ok) throw failed(`HTTP ${response.status}`);
  try {
    return await response.json() as ModelSpec;
  } catch (err) {
    throw signal.aborted ? err : failed(`it is not JSON (${(err as Error).message})`);
  }
}

/** The version and view ids of the model stored under `id` (none when its spec cannot be read). */
async function storedViews(
  invoker: Invoker,
  id: string,
): Promise<{ version: string; views: string[] } | undefined> {
  try {
    const spec = await invoker.invoke(operations.getSpec, { id });
    const views = (spec.viewDefinition as { views?: { id?: unknown }[] } | null | undefined)?.views;
    return {
      version: spec.version ?? DEFAULT_VERSION,
      views: Array.isArray(views) ? views.map((view) => String(view?.id)) : [],
    };
  } catch {
    return undefined;
  }
}

/** The embeddable model element. */
export class SvcModel extends LitElement {
  // The alert stands out from a form shown under it; colours as the view's own errors (a page may set them).
  static override styles = css`
    :host {
      display: block;
    }
    [role="alert"],
    .note,
    [role="status"] {
      font-size: 14px;
      margin: 0 0 12px;
    }
    [role="alert"] {
      border: 1px solid var(--svc-error, #b91c1c);
      background: #fef2f2;
      color: var(--svc-error, #b91c1c);
      padding: 8px 12px;
      border-radius: var(--svc-radius, 6px);
    }
    [role="status"] {
      border: 1px solid #cbd5e1;
      background: #f8fafc;
      padding: 8px 12px;
      border-radius: var(--svc-radius, 6px);
    }
  `;
  static override properties = {
    src: {},
    view: {},
    // Set again, the same object counts as a change: an app may change its spec in place and set it again
    // (before, Lit's identity check ignored it, and the element kept the spec it had started).
    spec: { attribute: false, hasChanged: () => true },
    connection: { state: true },
    modelId: { state: true },
    problem: { state: true },
    kept: { state: true },
    views: { state: true },
    updating: { state: true },
  };
  /** URL of the ModelSpec JSON. */
  src = "";
  /** A view id (default: the spec's default view). */
  view = "";
  /** The spec itself, instead of `src`. */
  spec?: ModelSpec;
  /** The connection of the model shown (none while none is). */
  connection?: PageConnection;
  /** The id of the model shown ("" while none is). */
  modelId = "";
  /** Why the spec could not start ("" when it did): the alert's text. */
  problem = "";
  /** The stored model shown under the alert, when it was kept: its version and view ids. */
  kept?: { version: string; views: string[] };
  /** The view ids of the model shown, as it started (the `view` asked for is checked against them). */
  views?: string[];
  /** Whether another tab is changing the model shown (its replacement): the view waits for it. */
  updating = false;

  protected override updated(changed: PropertyValues): void {
    if (changed.has("src") || changed.has("spec")) void this.#start();
    if (changed.has("connection") || changed.has("modelId")) this.#watch();
    this.#tellViewNote();
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.hasUpdated) this.#watch();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#unwatch?.();
    this.#unwatch = undefined;
  }

  #unwatch?: () => void;

  /** Follows whether another tab is changing the model shown. */
  #watch(): void {
    this.#unwatch?.();
    this.updating = false;
    this.#unwatch = this.connection && this.modelId
      ? this.connection.feed.watch(this.modelId, (held) => this.updating = held)
      : undefined;
  }

  /** Ends the start in progress: only the last `src` or `spec` set may show. */
  #abortStart?: AbortController;

  async #start(): Promise<void> {
    this.#abortStart?.abort();
    const start = this.#abortStart = new AbortController();
    let spec: ModelSpec | undefined;
    try {
      // As it is now: the app may change its object again later.
      spec = this.spec && structuredClone(this.spec);
      if (!spec && this.src) spec = await fetchSpec(this.src, start.signal);
      if (!spec || start.signal.aborted) return;
      const { id, connection } = await open(spec);
      if (start.signal.aborted) return;
      const views = (await storedViews(connection.invoker, id))?.views;
      if (start.signal.aborted) return;
      this.connection = connection;
      this.modelId = id;
      this.problem = "";
      this.kept = undefined;
      this.views = views;
    } catch (err) {
      // The stored model was kept as it was: it runs under the alert (the model of another id no longer shows).
      const kept = err instanceof StoredModelKept ? await pageConnection() : undefined;
      const stored = kept && await storedViews(kept.invoker, (err as StoredModelKept).id);
      if (start.signal.aborted) return;
      this.kept = stored;
      this.views = stored?.views;
      this.connection = kept;
      this.modelId = kept ? (err as StoredModelKept).id : "";
      const what = kept ? "This model's new spec" : "This model";
      this.problem = `${what} could not start: ${startProblem(err as Error)}`;
      this.#tell(spec?.id ?? "", this.problem);
    }
  }

  /** The `view` asked for when the model shown does not have it, else "". */
  #absentView(): string {
    return this.views?.length && this.view && !this.views.includes(this.view) ? this.view : "";
  }

  /** The line over the default view shown instead of `absent`. */
  #viewNote(absent: string): string {
    return this.kept
      ? `View '${absent}' is not in the stored version ${this.kept.version}: its default view shows.`
      : `This spec has no view '${absent}' (its views: ${this.views!.join(", ")}): its default view shows.`;
  }

  /** The unknown-view line last told as an `svc-error` (each told once, again after it went). */
  #toldNote = "";

  /** Tells the page of an unknown-view line as of any other failure: an `svc-error` of the element. */
  #tellViewNote(): void {
    const absent = this.#absentView();
    const note = absent && this.connection && this.modelId ? this.#viewNote(absent) : "";
    if (note === this.#toldNote) return;
    this.#toldNote = note;
    if (note) this.#tell(this.modelId, note);
  }

  /** Fires the element's `svc-error` `{modelId, message}`. */
  #tell(modelId: string, message: string): void {
    this.dispatchEvent(
      new CustomEvent("svc-error", { detail: { modelId, message }, bubbles: true, composed: true }),
    );
  }

  protected override render(): TemplateResult {
    const alert = this.problem ? html`<p role="alert">${this.problem}</p>` : nothing;
    // A view the model does not have (only the refused spec has it, or a typo): its default view shows, the
    // line saying so naming the views there are (before, the view's bare "not found" showed alone).
    const absent = this.#absentView();
    const note = absent ? html`<p class="note">${this.#viewNote(absent)}</p>` : nothing;
    const model = this.connection && this.modelId
      ? html`
        ${note}
                <svc-view .invoker=${this.connection.invoker} .feed=${this.connection.feed} model=${this
                  .modelId}
          view=${absent ? "" : this.view}></svc-view>
      `
      : this.problem
      ? nothing
      : html`<p>Loading…</p>`;
    // Writes made meanwhile wait for the model to come back (api.ts), then apply to it.
    const status = this.updating && this.connection && this.modelId
      ? html`
        <p
          role="status">This model is being updated in another tab: edits made here meanwhile are applied once it is done.</p>
      `
      : nothing;
    // One template: the view stays the same element when an alert or status comes or goes above it.
    return html`${alert}${status}${model}`;
  }
}

if (!customElements.get("svc-model")) customElements.define("svc-model", SvcModel);
