/// <reference lib="dom" />
/**
 * Explain a field: the traces of the expressions that computed it (and of the
 * constraints on it), newest first (`explain` answers oldest first), choosing
 * among the model's derived fields and constraints from its dependency graph.
 *
 * @module
 */
import { html, type TemplateResult } from "lit";
import { type GraphView, operations, type TraceRecord } from "../../engine/mod.ts";
import { ModelPanel } from "./model_panel.ts";

/** How many traced paths a refusal names: hundreds would be a wall of text (the box lists them all). */
const NAMED_TARGETS = 20;

/** `<svc-explain-panel>`. */
export class ExplainPanel extends ModelPanel {
  static override properties = {
    ...ModelPanel.properties,
    path: { state: true },
    targets: { state: true },
    traces: { state: true },
  };
  path = "";
  targets: string[] = [];
  traces: TraceRecord[] | null = null;

  protected override async load(): Promise<void> {
    const graph: GraphView = await this.connection!.invoker.invoke(operations.getGraph, { id: this.modelId });
    this.targets = graph.nodes.filter((n) => n.kind === "DERIVED" || n.kind === "CONSTRAINT").map((n) =>
      n.key
    );
    this.path ||= this.targets[0] ?? "$";
    this.traces = await this.connection!.invoker.invoke(operations.explain, {
      id: this.modelId,
      path: this.path,
      limit: 20,
    }).catch((err) => {
      // A path the model does not have is refused (the problem line says why): the last path's traces go.
      this.traces = null;
      throw err;
    });
  }

  /** The paths that have traces, named: the first {@link NAMED_TARGETS}, a big model's others counted. */
  private tracedPaths(): string {
    const more = this.targets.length - NAMED_TARGETS;
    return this.targets.length
      ? `This model's derived fields and constraints (the Field or constraint box lists them too): ${
        this.targets.slice(0, NAMED_TARGETS).join(", ")
      }${more > 0 ? `, … and ${more} more` : ""}.`
      : "This model has none.";
  }

  protected override render(): TemplateResult {
    // The table can be wider than a phone: it scrolls in a box of its own, which takes focus so that the
    // keyboard can scroll it too.
    return html`<h2>Explain</h2>
      <label class="inline">Field or constraint
        <input list="explain-targets" .value=${this.path} @change=${(e: Event) => {
      this.path = (e.target as HTMLInputElement).value.trim();
      void this.run(() => this.load());
    }}></label>
      <datalist id="explain-targets">${this.targets.map((t) => html`<option value=${t}></option>`)}</datalist>
      ${this.problemLine()}
      ${
      this.traces && this.traces.length
        ? html`
          <div class="table-wrap" tabindex="0" role="region" aria-label=${`Traces of ${this.path}`}>
            <table class="grid">
              <caption>Traces of ${this.path}, newest first</caption>
              <thead>
                <tr>
                  <th>target</th>
                  <th>expression</th>
                  <th>inputs</th>
                  <th>result</th>
                </tr>
              </thead>
              <tbody>${[...this.traces].reverse().map((t) =>
                html`
                  <tr class=${t.errorMessage || t.constraintPassed === false ? "bad" : ""}>
                    <td><code>${t.targetPath}</code></td>
                    <td><code>${t.expression}</code></td>
                    <td>${t.inputPaths.map((p) =>
                      html`
                        <code>${p}</code>
                      `
                    )}</td>
                    <td><code>${t.errorMessage ?? (t.constraintPassed === null
                      ? JSON.stringify(t.result)
                      : t.constraintPassed
                      ? "passed"
                      : "violated")}</code></td>
                  </tr>
                `
              )}</tbody>
            </table>
          </div>
        `
        : this.targets.includes(this.path)
        ? html`<p class="muted">No traces for ${this.path} yet: write a field it reads.</p>`
        // A path the model does not have is refused (the problem line says so): only which paths have traces.
        : this.traces === null
        ? html`<p class="muted">${this.tracedPaths()}</p>`
        // Writing would never trace a base field: say which paths have traces.
        : html`
          <p
            class="muted">No traces for ${this
              .path}: only derived fields and constraints have traces, and ${this
              .path} is neither. ${this.tracedPaths()}</p>
        `
    }`;
  }
}
customElements.define("svc-explain-panel", ExplainPanel);
