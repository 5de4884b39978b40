/// <reference lib="dom" />
/**
 * "Describe your model": a model id, the domain in words and whether to
 * include a view; optionally the prompt previewed and edited; then Generate,
 * which streams the server's progress (LLM requests, tool calls, validation
 * attempts, test runs, retries) into a live log, with Cancel. A valid result
 * shows its tests and spec, and "Create and open the model" registers it and
 * asks the app to open its view (`svc-created`), or "Edit the spec first"
 * opens it in the new-model editor (`svc-edit-spec`); a generation that found
 * no valid spec shows the validator's errors and the LLM's raw response.
 *
 * Shown where generation is available (`GET /llm/status`); elsewhere the
 * panel says why (see generation_status.ts).
 *
 * @module
 */
import { html, LitElement, nothing, type TemplateResult } from "lit";
import { type Json, operations, ServiceError } from "../../engine/mod.ts";
import type { GenerationFinding, GenerationResult } from "../../engine/service/generation.ts";
import type { Connection } from "../host/connection.ts";
import { failureText, GenerationRun } from "./generation_run.ts";
import { GenerationGate } from "./generation_status.ts";

/** The body of a generation that found no valid spec. */
interface Invalid {
  errors: GenerationFinding[];
  rawResponse: string | null;
}

/** `<svc-generate-panel>`. */
export class GeneratePanel extends LitElement {
  static override properties = {
    connection: { attribute: false },
    modelId: { state: true },
    description: { state: true },
    includeView: { state: true },
    prompt: { state: true },
    result: { state: true },
    invalid: { state: true },
    problem: { state: true },
  };
  connection?: Connection;
  modelId = "";
  description = "";
  includeView = true;
  /** The previewed (and possibly edited) prompt; `null` when Generate works from the description. */
  prompt: string | null = null;
  result: GenerationResult | null = null;
  invalid: Invalid | null = null;
  problem = "";
  readonly #run = new GenerationRun(this);
  readonly #gate = new GenerationGate(this, () => this.connection);

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  #clear(): void {
    this.problem = "";
    this.result = null;
    this.invalid = null;
  }

  async #preview(): Promise<void> {
    this.#clear();
    try {
      const { prompt } = await this.connection!.invoker.invoke(operations.previewGeneration, {
        modelId: this.modelId.trim(),
        domainDescription: this.description,
        includeView: this.includeView,
      });
      this.prompt = prompt;
    } catch (err) {
      this.problem = failureText(err);
    }
  }

  async #generate(e: Event): Promise<void> {
    e.preventDefault();
    if (this.#run.running) return;
    this.#clear();
    const modelId = this.modelId.trim();
    const input = this.prompt !== null
      ? { modelId, prompt: this.prompt }
      : { modelId, domainDescription: this.description, includeView: this.includeView };
    try {
      const result = await this.#run.run((options) =>
        this.connection!.invoker.invoke(operations.generateSpec, input, options)
      );
      if (result) this.result = result as GenerationResult;
    } catch (err) {
      const body = err instanceof ServiceError ? err.body : undefined;
      if (body && body.valid === false && Array.isArray(body.errors)) {
        this.invalid = body as unknown as Invalid;
      } else this.problem = failureText(err);
    }
  }

  async #create(): Promise<void> {
    this.problem = "";
    try {
      const spec = this.result!.spec as unknown as Json;
      const { id } = await this.connection!.invoker.invoke(operations.createModel, { spec: spec as never });
      this.dispatchEvent(new CustomEvent("svc-created", { bubbles: true, detail: id }));
    } catch (err) {
      this.problem = failureText(err);
    }
  }

  #editFirst(): void {
    this.dispatchEvent(
      new CustomEvent("svc-edit-spec", { bubbles: true, detail: JSON.stringify(this.result!.spec, null, 2) }),
    );
  }

  protected override render(): TemplateResult {
    return html`
      <section class="generate" aria-labelledby="generate-title">
        <h2 id="generate-title">Describe your model</h2>
        ${this.#gate.render(() => this.#form())}
        ${this.problem ? html`<p class="problem" role="alert">${this.problem}</p>` : nothing}
        ${this.#outcome()}
      </section>
    `;
  }

  #form(): TemplateResult {
    const running = this.#run.running;
    return html`
      <p class="muted">The server's LLM drafts a spec from your words; the validator and the spec's own tests
        check every draft, and it is repaired until it passes.</p>
      <form class="generate-form" @submit=${(e: Event) => this.#generate(e)}>
        <label class="stack">Model id <input name="modelId" required autocomplete="off"
          placeholder="e.g. shop/cart" .value=${this.modelId}
          @input=${(e: Event) => (this.modelId = (e.target as HTMLInputElement).value)}></label>
        <label class="stack">Describe the domain <textarea name="description" rows="4" maxlength="5000"
          ?required=${this.prompt === null} .value=${this.description}
          @input=${(
            e: Event,
          ) => (this.description = (e.target as HTMLTextAreaElement).value)}></textarea></label>
        <label><input type="checkbox" name="includeView" .checked=${this.includeView}
          @change=${(
            e: Event,
          ) => (this.includeView = (e.target as HTMLInputElement).checked)}> Include a view</label>
        ${this.prompt !== null
          ? html`<label class="stack">Prompt (edit it before generating; Generate sends it as it is)
              <textarea class="code" name="prompt" rows="14" .value=${this.prompt}
                @input=${(
            e: Event,
          ) => (this.prompt = (e.target as HTMLTextAreaElement).value)}></textarea></label>`
          : nothing}
        <div class="actions">
          ${this.prompt === null
            ? html`<button type="button" ?disabled=${running} @click=${() =>
              this.#preview()}>Preview the prompt</button>`
            : html`<button type="button" ?disabled=${running} @click=${() => (this.prompt = null)}>Use the
              description instead</button>`}
          <button type="submit" class="primary" ?disabled=${running}>Generate</button>
          ${this.#run.cancelButton()}
        </div>
      </form>
      ${this.#run.log("Generation progress")}
    `;
  }

  #outcome(): TemplateResult | typeof nothing {
    const result = this.result;
    if (result) {
      const v = result.verification;
      return html`
        <div class="result" data-testid="generated">
          <h3>Generated <code>${result.spec.id}</code></h3>
          <p><span class="badge ${v.state}">${v.state}</span> ${v.passedCount} of ${v.checkedCount} checkable
            tests pass${v.unverifiableCount ? `, ${v.unverifiableCount} not checkable` : ""}.</p>
          <details>
            <summary>The generated spec</summary>
            <pre class="code" tabindex="0">${JSON.stringify(result.spec, null, 2)}</pre>
          </details>
          <div class="actions">
            <button type="button" class="primary" @click=${() =>
              this.#create()}>Create and open the model</button>
            <button type="button" @click=${() => this.#editFirst()}>Edit the spec first</button>
          </div>
        </div>
      `;
    }
    const invalid = this.invalid;
    if (!invalid) return nothing;
    return html`
      <div class="refusal" data-testid="generation-invalid">
        <p role="alert"><strong>No valid spec within the attempts.</strong> The last draft's errors:</p>
        <ul>${invalid.errors.map((e) => html`<li><code>${e.location}</code>: ${e.message}</li>`)}</ul>
        <details open>
          <summary>Raw response of the last attempt</summary>
          <pre class="code wrap" tabindex="0">${invalid.rawResponse ?? "(no answer)"}</pre>
        </details>
      </div>
    `;
  }
}
customElements.define("svc-generate-panel", GeneratePanel);
