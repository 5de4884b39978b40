/// <reference lib="dom" />
/**
 * The model's embedded tests, run in throwaway runtimes (`testSpec`), and its
 * verification badge (`getVerification`: green, amber or neutral).
 *
 * @module
 */
import { html, nothing, type TemplateResult } from "lit";
import { type Json, operations, type TestRunResult, type VerificationReport } from "../../engine/mod.ts";
import { ModelPanel } from "./model_panel.ts";

const BADGE: Record<string, string> = {
  green: "Verified: every checkable example passes",
  amber: "Some examples fail or cannot be checked",
  neutral: "No checkable examples",
};

/** `<svc-tests-panel>`. */
export class TestsPanel extends ModelPanel {
  static override properties = {
    ...ModelPanel.properties,
    report: { state: true },
    testRun: { state: true },
  };
  report: VerificationReport | null = null;
  testRun: TestRunResult | null = null;

  protected override async load(): Promise<void> {
    const invoker = this.connection!.invoker;
    this.report = await invoker.invoke(operations.getVerification, { id: this.modelId });
    const spec = await invoker.invoke(operations.getSpec, { id: this.modelId });
    this.testRun = await invoker.invoke(operations.testSpec, {
      spec: spec as unknown as Json,
    }) as TestRunResult;
  }

  protected override render(): TemplateResult {
    const report = this.report;
    const run = this.testRun;
    return html`<h2>Tests and verification</h2>
      ${this.problemLine()}
      ${
      report
        ? html`<p><span class="badge ${report.state}" data-testid="verification">${report.state}</span>
          ${BADGE[report.state]} (${report.passedCount} of ${report.checkedCount} checkable passed,
          ${report.unverifiableCount} not checkable)</p>`
        : nothing
    }
      ${
      run
        ? html`
          <p>${run.passedCount} of ${run.total} tests passed.</p>
          <ul class="cases">${run.cases.map((c) =>
            // Words and colour, no check mark: the fonts of some systems have none (it showed blank).
            html`<li class=${c.passed ? "pass" : "fail"}>${c.passed ? "passed" : "failed"}: ${
              c.description || "(no description)"
            }
              ${c.error ? html`<div class="problem">${c.error}</div>` : nothing}
              ${
              c.failures.length
                ? html`<ul>${c.failures.map((f) => html`<li>${f.message}</li>`)}</ul>`
                : nothing
            }</li>`
          )}</ul>
        `
        : html`<p class="muted">Running…</p>`
    }`;
  }
}
customElements.define("svc-tests-panel", TestsPanel);
