/// <reference lib="dom" />
/**
 * Evolve: with AI (a sentence, where the server has an LLM provider:
 * ai_evolve_panel.ts), or by hand: edit the model's spec (validated as you
 * type), see the SpecEvolution it amounts to, apply it with `evolveSpec`, and
 * see what changed (the new version and every member applied).
 *
 * @module
 */
import { html, nothing, type TemplateResult } from "lit";
import { type ModelSpec, operations, type SpecEvolution } from "../../engine/mod.ts";
import type { JsonEditor } from "./json_editor.ts";
import "./json_editor.ts";
import "./ai_evolve_panel.ts";
import { ModelPanel } from "./model_panel.ts";
import { describeEvolution, evolutionBetween } from "./spec_diff.ts";
import { specLinter } from "./spec_lint.ts";

/** `<svc-evolve-panel>`. */
export class EvolvePanel extends ModelPanel {
  static override properties = {
    ...ModelPanel.properties,
    evolution: { state: true },
    applied: { state: true },
  };
  evolution: SpecEvolution | null = null;
  applied: string[] | null = null;
  #current: ModelSpec | null = null;
  #editedModel = "";

  protected override async load(): Promise<void> {
    const spec = await this.connection!.invoker.invoke(operations.getSpec, { id: this.modelId });
    const fresh = this.#editedModel !== this.modelId ||
      JSON.stringify(spec) !== JSON.stringify(this.#current);
    this.#current = spec;
    if (fresh) {
      this.#editedModel = this.modelId;
      await this.updateComplete;
      this.#editor().value = JSON.stringify(spec, null, 2);
      this.evolution = null;
    }
  }

  #editor(): JsonEditor {
    return this.querySelector("svc-json-editor") as JsonEditor;
  }

  #preview(): void {
    this.applied = null;
    try {
      this.evolution = evolutionBetween(this.#current!, JSON.parse(this.#editor().value));
    } catch (err) {
      this.evolution = null;
      this.problem = (err as Error).message;
    }
  }

  async #apply(): Promise<void> {
    this.#preview();
    const evolution = this.evolution;
    if (!evolution) return;
    // Refused, a preview left beside the refusal would read as applied: only the refusal is shown.
    this.evolution = null;
    let version: string;
    try {
      ({ version } = await this.connection!.invoker.invoke(operations.evolveSpec, {
        id: this.modelId,
        evolution: evolution as never,
      }));
    } catch (err) {
      throw new Error(`Not applied: ${(err as Error).message}`);
    }
    this.applied = [`Now at version ${version}.`, ...describeEvolution(evolution)];
    this.changed();
  }

  protected override render(): TemplateResult {
    const lines = this.evolution ? describeEvolution(this.evolution) : [];
    return html`
      <svc-ai-evolve .connection=${this.connection} .modelId=${this.modelId}></svc-ai-evolve>
      <h2>Evolve the spec by hand</h2>
            <p
        class="muted">Edit the spec; findings appear as you type. Applying sends the difference as a SpecEvolution.</p>
            <svc-json-editor label="Spec to evolve" .lint=${specLinter(() => this.connection?.invoker)}
        @svc-input=${() => (this.evolution = null)}></svc-json-editor>
            <div class="actions">
        <button type="button" @click=${() =>
          this.run(() => Promise.resolve(this.#preview()))}>Preview the evolution</button>
        <button type="button" class="primary" @click=${() =>
          this.run(() => this.#apply())}>Apply the evolution</button>
      </div>
            ${this.problemLine()}
            ${this.evolution
              ? html`
                <div class="result" role="status">
                  <p>${lines.length ? "This evolution:" : "Nothing changed."}</p>
                  <ul>${lines.map((l) => html`<li><code>${l}</code></li>`)}</ul>
                  <details>
                    <summary>SpecEvolution JSON</summary>
                    <pre class="code">${JSON.stringify(this.evolution, null, 2)}</pre>
                  </details>
                </div>
              `
              : nothing}
            ${this.applied
              ? html`<div class="result ok" role="status"><strong>Applied.</strong><ul>${
                this.applied.map((l) => html`<li>${l}</li>`)
              }</ul></div>`
              : nothing}
    `;
  }
}
customElements.define("svc-evolve-panel", EvolvePanel);
