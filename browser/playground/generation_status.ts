/// <reference lib="dom" />
/**
 * Whether a connection can generate (`getGenerationStatus`, asked once per
 * connection: a read that answers without provoking a 503), as a Lit reactive
 * controller the generation panels render through: their form where
 * generation is available, otherwise why not. The tab has no LLM provider, so
 * there the panels say that generation runs on a server rather than hide: a
 * person looking for it learns where it is.
 *
 * @module
 */
import { html, type ReactiveController, type ReactiveControllerHost, type TemplateResult } from "lit";
import { operations } from "../../engine/mod.ts";
import type { Connection } from "../host/connection.ts";
import { failureText } from "./generation_run.ts";

/** The answer of `getGenerationStatus`. */
interface GenerationStatus {
  available: boolean;
  /** Why not: the keys the server needs, or what a paired session may not do. */
  message?: string;
}

const asked = new WeakMap<Connection, Promise<GenerationStatus>>();

/** The connection's generation status, read once per connection (a failed read is asked again). */
function generationStatus(connection: Connection): Promise<GenerationStatus> {
  let status = asked.get(connection);
  if (!status) {
    status = connection.invoker.invoke(operations.getGenerationStatus, {});
    asked.set(connection, status);
    status.catch(() => asked.delete(connection));
  }
  return status;
}

/** Follows the host's connection and gates its generation form on the connection's status. */
export class GenerationGate implements ReactiveController {
  readonly #host: ReactiveControllerHost;
  readonly #connectionOf: () => Connection | undefined;
  #connection?: Connection;
  #status: GenerationStatus | null = null;
  #problem = "";

  constructor(host: ReactiveControllerHost, connectionOf: () => Connection | undefined) {
    this.#host = host;
    this.#connectionOf = connectionOf;
    host.addController(this);
  }

  hostUpdate(): void {
    const connection = this.#connectionOf();
    if (connection === this.#connection) return;
    this.#connection = connection;
    this.#status = null;
    this.#problem = "";
    if (!connection) return;
    generationStatus(connection).then((status) => {
      if (connection !== this.#connection) return;
      this.#status = status;
      this.#host.requestUpdate();
    }, (err) => {
      if (connection !== this.#connection) return;
      this.#problem = failureText(err);
      this.#host.requestUpdate();
    });
  }

  /** `form()` where generation is available; otherwise what the person should know. */
  render(form: () => TemplateResult): TemplateResult {
    const connection = this.#connection;
    const status = this.#status;
    if (this.#problem) {
      return html`<p class="problem" role="alert">Cannot tell whether generation is available: ${this.#problem}</p>`;
    }
    if (!connection || !status) return html`<p class="muted">Checking whether generation is available…</p>`;
    if (status.available) return form();
    return connection.mode === "tab"
      ? html`<p class="muted" data-testid="generation-unavailable">Generation needs a server with an LLM provider;
          models in this tab have none. Choose "On a server" under "Where models run" to use one.</p>`
      : html`<p class="muted" data-testid="generation-unavailable"><strong>Not available here.</strong> ${
        status.message ?? ""
      }</p>`;
  }
}
