/// <reference lib="dom" />
/**
 * The audit trail as a timeline (newest first: sequence, time, source, what
 * was written and derived) and a check of its hash chain (`verifyAudit`).
 *
 * @module
 */
import { html, nothing, type TemplateResult } from "lit";
import { type AuditRecord, type AuditVerification, operations } from "../../engine/mod.ts";
import { ModelPanel } from "./model_panel.ts";

/** What a record wrote, in one line. */
export function writtenOf(record: AuditRecord): string {
  if (Array.isArray(record.mutations)) {
    return record.mutations.map((op) => {
      const o = op as { op?: string; path?: string };
      return `${o.op} ${o.path}`;
    }).join(", ");
  }
  return Object.entries(record.mutations ?? {}).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(", ");
}

/** `<svc-audit-panel>`. */
export class AuditPanel extends ModelPanel {
  static override properties = {
    ...ModelPanel.properties,
    records: { state: true },
    verification: { state: true },
  };
  records: AuditRecord[] = [];
  verification: AuditVerification | null = null;

  protected override async load(): Promise<void> {
    this.records = await this.connection!.invoker.invoke(operations.getAudit, {
      id: this.modelId,
      limit: 50,
    });
    this.verification = null;
  }

  async #verify(): Promise<void> {
    this.verification = await this.connection!.invoker.invoke(operations.verifyAudit, { id: this.modelId });
  }

  protected override render(): TemplateResult {
    const v = this.verification;
    return html`<h2>Audit trail</h2>
      <button type="button" @click=${() => this.run(() => this.#verify())}>Verify the hash chain</button>
      ${
      v
        ? html`<p role="status" class=${v.valid ? "ok" : "problem"}>${
          v.valid
            ? `Intact: ${v.recordsChecked} records checked.`
            : `Broken at record ${v.firstBrokenSequence}: ${v.detail}`
        }</p>`
        : nothing
    }
      ${this.problemLine()}
      ${
      this.records.length
        ? html`<ol class="timeline" reversed>${
          this.records.map((r) =>
            html`<li><span class="seq">#${r.sequence}</span> <time>${r.timestamp}</time> <span class="tag">${r.source}</span>
              <div><code>${writtenOf(r)}</code></div>
              ${
              r.derivedUpdated.length
                ? html`<div class="muted">derived ${r.derivedUpdated.join(", ")}</div>`
                : nothing
            }
              ${
              r.flaggedConstraints.length
                ? html`<div class="warn">flagged ${r.flaggedConstraints.join(", ")}</div>`
                : nothing
            }
            </li>`
          )
        }</ol>`
        : html`<p class="muted">No commits yet.</p>`
    }`;
  }
}
customElements.define("svc-audit-panel", AuditPanel);
