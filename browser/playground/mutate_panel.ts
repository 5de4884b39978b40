/// <reference lib="dom" />
/**
 * Writes by hand: a flat map (`{"$.qty": 3}`) or an RFC 6902 JSON Patch, with
 * the mutation result shown (mutated and derived paths, flagged constraints,
 * dispatched effects) or the refusal with its violations.
 *
 * @module
 */
import { html, nothing, type TemplateResult } from "lit";
import { type Json, operations, ServiceError } from "../../engine/mod.ts";
import type { WriteResult } from "../../engine/service/api.ts";
import { ModelPanel } from "./model_panel.ts";

/** `<svc-mutate-panel>`. */
export class MutatePanel extends ModelPanel {
  static override properties = {
    ...ModelPanel.properties,
    mode: { state: true },
    result: { state: true },
    refusal: { state: true },
  };
  mode: "map" | "patch" = "map";
  result: WriteResult | null = null;
  refusal: { message: string; body?: Json } | null = null;
  #text = { map: '{\n  "$.field": 1\n}', patch: '[\n  { "op": "add", "path": "/items/-", "value": {} }\n]' };

  async #send(): Promise<void> {
    const invoker = this.connection!.invoker;
    this.result = null;
    this.refusal = null;
    let body: unknown;
    try {
      body = JSON.parse(this.#text[this.mode]);
    } catch (err) {
      this.refusal = { message: `Not JSON: ${(err as Error).message}` };
      return;
    }
    try {
      this.result = this.mode === "map"
        ? await invoker.invoke(operations.mutate, {
          id: this.modelId,
          mutations: body as Record<string, Json>,
        })
        : await invoker.invoke(operations.patch, { id: this.modelId, patch: body as never });
      this.changed();
    } catch (err) {
      this.refusal = {
        message: (err as Error).message,
        body: err instanceof ServiceError ? err.body as Json : undefined,
      };
    }
  }

  protected override render(): TemplateResult {
    const r = this.result;
    return html`
      <h2>Mutate</h2>
            <div role="radiogroup" aria-label="Kind of write" class="inline">
        <label><input type="radio" name="mutate-mode" .checked=${this.mode ===
          "map"} @change=${() => (this.mode = "map")}> By path</label>
        <label><input type="radio" name="mutate-mode" .checked=${this.mode ===
          "patch"} @change=${() => (this.mode = "patch")}> JSON Patch</label>
      </div>
            <label class="stack">${this.mode === "map"
              // Words, not an arrow: the fonts of some systems have no arrow glyph (it showed blank).
              ? "Paths and their values (JSON object)"
              : "Patch operations (JSON array)"}
              <textarea rows="6" class="code" .value=${this.#text[this.mode]}
                @input=${(
                  e: Event,
                ) => (this.#text[this.mode] = (e.target as HTMLTextAreaElement).value)}></textarea></label>
            <button type="button" class="primary" @click=${() => this.#send()}>Apply</button>
            ${this.problemLine()}
            ${this.refusal
              ? html`<div class="refusal" role="alert"><strong>Refused:</strong> ${this.refusal.message}
          ${
                this.refusal.body
                  ? html`<pre class="code">${JSON.stringify(this.refusal.body, null, 2)}</pre>`
                  : nothing
              }</div>`
              : nothing}
            ${r
              ? html`<div class="result" role="status" aria-label="Mutation result">
          <p><strong>Committed.</strong></p>
          <p>Written: ${
                r.mutatedPaths.map((p) =>
                  html`
                    <span class="tag mutated">${p}</span>
                  `
                )
              }</p>
          <p>Derived: ${
                r.derivedUpdated.length
                  ? r.derivedUpdated.map((p) =>
                    html`
                      <span class="tag derived">${p}</span>
                    `
                  )
                  : "none"
              }</p>
          ${
                r.flaggedConstraints.length
                  ? html`<p>Flagged: ${
                    r.flaggedConstraints.map((f) =>
                      html`
                        <span class="tag flag">${f.message}</span>
                      `
                    )
                  }</p>`
                  : nothing
              }
          ${
                r.dispatchedEffects.length
                  ? html`<p>Effects: ${
                    r.dispatchedEffects.map((e) =>
                      html`
                        <span class="tag">${e.effectId}</span>
                      `
                    )
                  }</p>`
                  : nothing
              }
        </div>`
              : nothing}
    `;
  }
}
customElements.define("svc-mutate-panel", MutatePanel);
