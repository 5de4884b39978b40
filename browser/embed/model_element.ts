/// <reference lib="dom" />
/**
 * `<svc-model src="spec.json" view="main">`: runs a ModelSpec in the page and
 * renders its view. The spec comes from `src` (a URL of ModelSpec JSON) or the
 * `spec` property; `view` picks a view (default: the spec's default view).
 * State lives in IndexedDB keyed by the spec's id, so a reload shows the last
 * state. Events of the inner `<svc-view>` (`svc-commit`, `svc-effect`, `svc-error`,
 * `svc-navigate`) bubble out of the element.
 *
 * @module
 */
import { html, LitElement, type PropertyValues, type TemplateResult } from "lit";
import type { ModelSpec } from "../../engine/mod.ts";
import "../elements/view_element.ts";
import type { Connection } from "../host/connection.ts";
import { open } from "./api.ts";

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

/** The embeddable model element. */
export class SvcModel extends LitElement {
  static override properties = {
    src: {},
    view: {},
    spec: { attribute: false },
    connection: { state: true },
    modelId: { state: true },
    problem: { state: true },
  };
  /** URL of the ModelSpec JSON. */
  src = "";
  /** A view id (default: the spec's default view). */
  view = "";
  /** The spec itself, instead of `src`. */
  spec?: ModelSpec;
  connection?: Connection;
  modelId = "";
  problem = "";

  protected override updated(changed: PropertyValues): void {
    if (changed.has("src") || changed.has("spec")) void this.#start();
  }

  /** Ends the start in progress: only the last `src` or `spec` set may show. */
  #abortStart?: AbortController;

  async #start(): Promise<void> {
    this.#abortStart?.abort();
    const start = this.#abortStart = new AbortController();
    try {
      let spec = this.spec;
      if (!spec && this.src) {
        const response = await fetch(new URL(this.src, document.baseURI), { signal: start.signal });
        if (!response.ok) throw new Error(`could not load ${this.src}: HTTP ${response.status}`);
        spec = await response.json() as ModelSpec;
      }
      if (!spec || start.signal.aborted) return;
      const { id, connection } = await open(spec);
      if (start.signal.aborted) return;
      this.connection = connection;
      this.modelId = id;
      this.problem = "";
    } catch (err) {
      if (!start.signal.aborted) this.problem = `This model could not start: ${startProblem(err as Error)}`;
    }
  }

  protected override render(): TemplateResult {
    if (this.problem) return html`<p role="alert">${this.problem}</p>`;
    if (!this.connection) return html`<p>Loading…</p>`;
    return html`
      <svc-view .invoker=${this.connection.invoker} .feed=${this.connection.feed} model=${this.modelId}
        view=${this.view}></svc-view>
    `;
  }
}

if (!customElements.get("svc-model")) customElements.define("svc-model", SvcModel);
