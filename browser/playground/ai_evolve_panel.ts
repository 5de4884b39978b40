/// <reference lib="dom" />
/**
 * "Evolve with AI", at the top of the Evolve panel: a sentence describing the
 * change, then Evolve, which streams the server's progress into a live log
 * (with Cancel) while the LLM drafts a SpecEvolution, and the server applies
 * it through the normal evolve path. Applied: the new version and what
 * changed (and the app reloads every panel, `svc-changed`). Refused: a 409
 * (the model was evolved meanwhile) or a 422 (the evolved spec is invalid or
 * would strand state) says that nothing was applied and why.
 *
 * Shown where generation is available; elsewhere it says why.
 *
 * @module
 */
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from "lit";
import { type ModelSpec, operations, ServiceError, STATUS_OF_KIND } from "../../engine/mod.ts";
import type { Connection } from "../host/connection.ts";
import { failureText, GenerationRun } from "./generation_run.ts";
import { GenerationGate } from "./generation_status.ts";
import { describeEvolution, evolutionBetween } from "./spec_diff.ts";

/** What a refusal of the evolve path means for the person, by status. */
const REFUSALS: Record<number, string> = {
  409:
    "The model changed while the LLM drafted its evolution, so nothing was applied. Run it again to draft " +
    "against the current version.",
  422:
    "The drafted evolution was refused, so nothing was applied: the evolved spec is invalid or the current " +
    "state would not fit it.",
  502: "The LLM drafted no evolution that applies, so nothing was applied.",
};

/** `<svc-ai-evolve>`. */
export class AiEvolvePanel extends LitElement {
  static override properties = {
    connection: { attribute: false },
    modelId: { attribute: false },
    description: { state: true },
    applied: { state: true },
    refusal: { state: true },
    problem: { state: true },
  };
  connection?: Connection;
  modelId = "";
  description = "";
  /** What the last applied evolution changed, for people. */
  applied: string[] | null = null;
  /** Why the last evolution was not applied (409, 422, 502). */
  refusal: { explanation: string; detail: string } | null = null;
  problem = "";
  readonly #run = new GenerationRun(this);
  readonly #gate = new GenerationGate(this, () => this.connection);

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has("modelId")) {
      this.#run.cancel();
      this.applied = null;
      this.refusal = null;
    }
  }

  async #evolve(e: Event): Promise<void> {
    e.preventDefault();
    if (this.#run.running) return;
    this.applied = null;
    this.refusal = null;
    this.problem = "";
    const { invoker } = this.connection!;
    const id = this.modelId;
    try {
      const before = await invoker.invoke(operations.getSpec, { id });
      const result = await this.#run.run((options) =>
        invoker.invoke(operations.evolveSpecAi, { id, description: this.description }, options)
      );
      if (!result) return;
      const changes = describeEvolution(evolutionBetween(before, result.spec as ModelSpec));
      this.applied = [
        `Now at version ${result.version}.`,
        ...(changes.length ? changes : ["Nothing changed."]),
      ];
      this.dispatchEvent(new CustomEvent("svc-changed", { bubbles: true, detail: id }));
    } catch (err) {
      const explanation = err instanceof ServiceError ? REFUSALS[STATUS_OF_KIND[err.kind]] : undefined;
      if (explanation) this.refusal = { explanation, detail: failureText(err) };
      else this.problem = failureText(err);
    }
  }

  protected override render(): TemplateResult {
    return html`
      <section class="ai-evolve" aria-labelledby="ai-evolve-title">
        <h2 id="ai-evolve-title">Evolve with AI</h2>
        ${this.#gate.render(() => this.#form())}
        ${this.problem ? html`<p class="problem" role="alert">${this.problem}</p>` : nothing}
        ${this.refusal
          ? html`
            <div class="refusal" data-testid="ai-evolve-refused">
              <p role="alert"><strong>${this.refusal
                .explanation}</strong></p>
              <p>${this.refusal.detail}</p>
            </div>
          `
          : nothing}
        ${this.applied
          ? html`
            <div class="result ok" role="status"
              data-testid="ai-evolved"><strong>Applied.</strong><ul>${this.applied.map((line) =>
                html`<li>${line}</li>`
              )}</ul></div>
          `
          : nothing}
      </section>
    `;
  }

  #form(): TemplateResult {
    const running = this.#run.running;
    return html`
      <form class="ai-evolve-form" @submit=${(e: Event) => this.#evolve(e)}>
        <label class="stack grow">Describe the change <input name="description" required maxlength="5000"
          autocomplete="off" placeholder="e.g. also show the value tripled" .value=${this.description}
          @input=${(e: Event) => (this.description = (e.target as HTMLInputElement).value)}></label>
        <button type="submit" class="primary" ?disabled=${running}>Evolve with AI</button>
        ${this.#run.cancelButton()}
      </form>
      ${this.#run.log("Evolution progress")}
    `;
  }
}
customElements.define("svc-ai-evolve", AiEvolvePanel);
