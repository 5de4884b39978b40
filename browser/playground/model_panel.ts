/// <reference lib="dom" />
/**
 * The base of the playground's per-model panels: light DOM (the page's
 * stylesheet applies), the connection and model id as properties, `revision`
 * bumped by the app after every change of the model (own writes, other
 * writers, evolutions), and `load()` called whenever one of them changes.
 * Failures of a panel's own calls are shown in the panel (`problem`).
 *
 * @module
 */
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from "lit";
import type { Connection } from "../host/connection.ts";

/** A panel showing one model through the connection's invoker. */
export class ModelPanel extends LitElement {
  static override properties = {
    connection: { attribute: false },
    modelId: { attribute: false },
    revision: { type: Number },
    problem: { state: true },
  };
  connection?: Connection;
  modelId = "";
  revision = 0;
  problem = "";

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  protected override updated(changed: PropertyValues): void {
    if (
      ["connection", "modelId", "revision"].some((p) => changed.has(p)) && this.connection && this.modelId
    ) {
      void this.run(() => this.load());
    }
  }

  /** Reads what the panel shows; called after every change of connection, model or revision. */
  protected load(): Promise<void> {
    return Promise.resolve();
  }

  /** Runs an action, showing its failure in the panel. */
  protected async run(action: () => Promise<void>): Promise<void> {
    try {
      this.problem = "";
      await action();
    } catch (err) {
      this.problem = (err as Error).message;
    }
  }

  /** The panel's problem line, if any. */
  protected problemLine(): TemplateResult | typeof nothing {
    return this.problem ? html`<p class="problem" role="alert">${this.problem}</p>` : nothing;
  }

  /** Tells the app the model changed (it bumps every panel's revision). */
  protected changed(): void {
    this.dispatchEvent(new CustomEvent("svc-changed", { bubbles: true, detail: this.modelId }));
  }
}

/** Offers `text` as a file download named `name`. */
export function download(name: string, text: string, type = "application/json"): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A file chosen by the person, as text. */
export function readFile(input: HTMLInputElement): Promise<string | null> {
  const file = input.files?.[0];
  input.value = "";
  return file ? file.text() : Promise.resolve(null);
}

/** A file-safe name for a model id. */
export function fileName(id: string, what: string): string {
  return `${id.replace(/[^A-Za-z0-9_-]+/g, "_")}.${what}.json`;
}
