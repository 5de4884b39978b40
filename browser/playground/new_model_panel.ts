/// <reference lib="dom" />
/**
 * A new model: the spec editor (JSON highlighting, validation findings inline
 * as you type) and Create, which registers the spec through the invoker and
 * asks the app to open it (`svc-created`).
 *
 * @module
 */
import { html, LitElement, type TemplateResult } from "lit";
import { type Json, operations } from "../../engine/mod.ts";
import type { Connection } from "../host/connection.ts";
import type { JsonEditor } from "./json_editor.ts";
import "./json_editor.ts";
import { specLinter } from "./spec_lint.ts";

/** `<svc-new-model>`. */
export class NewModelPanel extends LitElement {
  static override properties = { connection: { attribute: false }, text: {}, problem: { state: true } };
  connection?: Connection;
  /** The spec text to start from. */
  text = "";
  problem = "";

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  protected override updated(changed: Map<string, unknown>): void {
    if (changed.has("text")) (this.querySelector("svc-json-editor") as JsonEditor).value = this.text;
  }

  async #create(): Promise<void> {
    this.problem = "";
    try {
      const spec = JSON.parse((this.querySelector("svc-json-editor") as JsonEditor).value) as Json;
      const { id } = await this.connection!.invoker.invoke(operations.createModel, { spec: spec as never });
      this.dispatchEvent(new CustomEvent("svc-created", { bubbles: true, detail: id }));
    } catch (err) {
      this.problem = (err as Error).message;
    }
  }

  protected override render(): TemplateResult {
    return html`
      <h2>New model</h2>
            <p class="muted">Write or paste a ModelSpec. Findings appear in the margin as you type.</p>
            <svc-json-editor label="New model spec" .lint=${specLinter(() =>
              this.connection?.invoker
            )}></svc-json-editor>
            <div
        class="actions"><button type="button" class="primary" @click=${() =>
          this.#create()}>Create the model</button></div>
            ${this.problem ? html`<p class="problem" role="alert">${this.problem}</p>` : ""}
    `;
  }
}
customElements.define("svc-new-model", NewModelPanel);
