/// <reference lib="dom" />
/**
 * `<svc-storage-notice>`: what the in-tab service found wrong with the stored
 * models when it loaded them, for the person rather than the console alone:
 * the models it could not load, and those whose state could not be rebuilt
 * and was reset, their stored state and log kept for recovery, each with
 * _Export_ (the kept records as a JSON file, the registry's `getRecovery`) and
 * _Delete_ (`deleteRecovery`, once exported). Empty when all is well.
 *
 * @module
 */
import { html, LitElement, nothing, type TemplateResult } from "lit";
import { operations, type RecoverySummary } from "../../engine/mod.ts";
import type { Connection } from "../host/connection.ts";
import { download, fileName } from "./model_panel.ts";

/** The playground's notice of stored data that needs attention. */
export class StorageNotice extends LitElement {
  static override properties = {
    connection: { attribute: false },
    warnings: { attribute: false },
    kept: { state: true },
    problem: { state: true },
  };
  connection?: Connection;
  /** The service's warnings since the connection opened. */
  warnings: readonly string[] = [];
  kept: RecoverySummary[] = [];
  problem = "";

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  protected override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has("connection") || changed.has("warnings")) void this.#list();
  }

  async #list(): Promise<void> {
    // A server keeps its recovery records for its operator (admin routes); the tab's are the person's.
    if (this.connection?.mode !== "tab") return void (this.kept = []);
    await this.#run(async () => {
      this.kept = await this.connection!.invoker.invoke(operations.listRecovery, {});
    });
  }

  async #run(action: () => Promise<void>): Promise<void> {
    try {
      this.problem = "";
      await action();
    } catch (err) {
      this.problem = (err as Error).message;
    }
  }

  #export(id: string): Promise<void> {
    return this.#run(async () => {
      const records = await this.connection!.invoker.invoke(operations.getRecovery, { id });
      download(fileName(id, "recovery"), JSON.stringify(records, null, 2));
    });
  }

  #delete(id: string): Promise<void> {
    return this.#run(async () => {
      await this.connection!.invoker.invoke(operations.deleteRecovery, { id });
      await this.#list();
    });
  }

  protected override render(): TemplateResult | typeof nothing {
    // Models reset with their data kept are listed below with what to do, not as the engine's log line.
    const others = this.warnings.filter((w) => !w.includes("RECOVERY NEEDED"));
    if (!others.length && !this.kept.length && !this.problem) return nothing;
    return html`
      <section class="problem" role="alert" aria-labelledby="storage-notice-title">
        <h2 id="storage-notice-title">Stored data that needs attention</h2>
        ${others.length ? html`<ul>${others.map((w) => html`<li>${w}</li>`)}</ul>` : nothing}
        ${[...new Map(this.kept.map((k) => [k.modelId, k])).values()].map((k) =>
          html`
            <p>
              Model '${k.modelId}' could not be rebuilt from its stored state (${k.reason}), so it was reset;
              its stored state and ${k.logEntries} logged ${k.logEntries === 1
                ? "write"
                : "writes"} are kept. Export them to rebuild the data by
              hand, then delete them here.
            </p>
            <div class="inline">
              <button type="button" @click=${() => this.#export(k.modelId)}>Export the kept records of ${k
                .modelId}</button>
              <button type="button" @click=${() => this.#delete(k.modelId)}>Delete the kept records of ${k
                .modelId}</button>
            </div>
          `
        )}
        ${this.problem ? html`<p>${this.problem}</p>` : nothing}
      </section>
    `;
  }
}
customElements.define("svc-storage-notice", StorageNotice);
