/// <reference lib="dom" />
/**
 * Explain a field: the traces of the expressions that computed it (and of the
 * constraints on it), newest first (`explain` answers oldest first), choosing
 * among the model's derived fields, meta values (`$.x#required`) and
 * constraints from its dependency graph.
 *
 * @module
 */
import { html, type TemplateResult } from "lit";
import { formatPath, type GraphView, operations, pathOrNull, type TraceRecord } from "../../engine/mod.ts";
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
    // Meta derivations trace too, each at its own key (`$.note#required`): a field they alone compute has
    // its traces there.
    this.targets = graph.nodes.filter((n) =>
      n.kind === "DERIVED" || n.kind === "META" || n.kind === "CONSTRAINT"
    )
      .map((n) => n.key);
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
      ? `This model's derived fields, meta values and constraints (the Field or constraint box lists them too): ${
        this.targets.slice(0, NAMED_TARGETS).join(", ")
      }${more > 0 ? `, … and ${more} more` : ""}.`
      : "This model has none.";
  }

  /**
   * The meta values of the field at `path` that have traces (`$.note#required`, …), as the graph keys them:
   * under the field's canonical address, so `$['note']` or `$["note"]` typed in the box finds them too.
   */
  private metaTargets(path: string): string[] {
    const segments = pathOrNull(path);
    if (segments === null) return [];
    const prefix = `${formatPath(segments)}#`;
    return this.targets.filter((t) => t.startsWith(prefix));
  }

  /** Explains `path` as if typed in the box, where focus goes (the button pressed goes with its line). */
  private explainAt(path: string): void {
    this.path = path;
    void this.run(() => this.load());
    void this.updateComplete.then(() => this.querySelector<HTMLInputElement>("input[list]")?.focus());
  }

  /**
   * Why a field the model has shows no traces: it is a base field, whose value is written, not computed; its
   * meta values (offered as buttons) may be computed, each traced at its own key.
   */
  private baseFieldLine(): TemplateResult {
    const metas = this.metaTargets(this.path);
    if (!metas.length) {
      return html`<p class="muted">No traces for ${this.path}: only derived fields, meta values and constraints have
        traces, and ${this.path} is none of them. ${this.tracedPaths()}</p>`;
    }
    return html`<p class="muted">No traces for ${this.path}: its value is written, not computed. Its meta values
        are computed, each traced at its own key: ${
      metas.map((m) =>
        html`
          <button type="button" @click=${() => this.explainAt(m)}><code>${m}</code></button>
        `
      )
    }</p>`;
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
        // Writing would never trace a base field: say which paths have traces (its meta values, when computed).
        : this.baseFieldLine()
    }`;
  }
}
customElements.define("svc-explain-panel", ExplainPanel);
