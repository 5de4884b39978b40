/**
 * Renderers of the record kinds that show more than a value: the trace panels
 * (`explainPanel`: the traces of the bound field, `auditTimeline`: the audit
 * trail; both fetched through the invoker, again after every commit), the
 * validation summary (every message of the view, by prefix) and the effect
 * status chip (phase, error, Retry running `onRetry`).
 *
 * @module
 */
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from "lit";
import {
  type AuditRecord,
  type EvaluatedComponent,
  type Invoker,
  type Json,
  operations,
  type TraceRecord,
} from "../../engine/mod.ts";
import { handlerTold, nameOf } from "./field.ts";
import { formatValue } from "./format.ts";
import type { ViewContext } from "./view_context.ts";

type Renderer = (c: EvaluatedComponent, ctx: ViewContext) => TemplateResult;

/** Lists traces of a field or audit records of a model, fetched through an invoker. */
export class TraceList extends LitElement {
  static override properties = {
    invoker: { attribute: false },
    modelId: { attribute: false },
    kind: {},
    path: {},
    limit: { type: Number },
    revision: { type: Number },
    showConstraints: { type: Boolean },
    rows: { state: true },
  };
  invoker?: Invoker;
  modelId = "";
  kind: "explain" | "audit" = "explain";
  path = "$";
  limit = 10;
  revision = 0;
  showConstraints = true;
  rows: string[] | null = null;

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  protected override updated(changed: PropertyValues): void {
    if (["invoker", "modelId", "kind", "path", "limit", "revision"].some((p) => changed.has(p))) {
      void this.#load();
    }
  }

  async #load(): Promise<void> {
    if (!this.invoker || !this.modelId) return;
    try {
      if (this.kind === "audit") {
        const records: AuditRecord[] = await this.invoker.invoke(operations.getAudit, {
          id: this.modelId,
          limit: this.limit,
        });
        this.rows = records.map((r) =>
          `#${r.sequence} ${r.timestamp.slice(11, 19)} ${r.source}: ${
            Array.isArray(r.mutations)
              ? `${r.mutations.length} patch operations`
              : Object.keys(r.mutations ?? {}).join(", ")
          }`
        );
      } else {
        const traces: TraceRecord[] = await this.invoker.invoke(operations.explain, {
          id: this.modelId,
          path: this.path,
          limit: this.limit,
        });
        // "from", not an arrow: the fonts of some systems have no arrow glyph (it showed blank).
        this.rows = traces.filter((t) => this.showConstraints || t.constraintPassed === null).map((t) =>
          `${t.targetPath} = ${
            t.result === null ? "(no value)" : formatValue(t.result as Json)
          } from ${t.expression}${t.errorMessage ? ` (error: ${t.errorMessage})` : ""}`
        );
      }
    } catch (err) {
      this.rows = [`Could not load: ${(err as Error).message}`];
    }
  }

  protected override render(): TemplateResult {
    if (this.rows === null) return html`<p class="empty">Loading…</p>`;
    if (!this.rows.length) {
      return html`<p class="empty">${
        this.kind === "audit" ? "No changes recorded yet." : "No traces yet: change a field."
      }</p>`;
    }
    return html`<ol class="trace-list">${this.rows.map((r) => html`<li><code>${r}</code></li>`)}</ol>`;
  }
}
if (!customElements.get("svc-trace-list")) customElements.define("svc-trace-list", TraceList);

const tracePanel: Renderer = (c, ctx) =>
  html`
    <details class="trace-panel" data-component=${c.id} ?open=${c.collapsed !== true}>
      <summary>${c.label ??
        (c.type === "auditTimeline" ? "Audit timeline" : `Explain ${nameOf(c)}`)}</summary>
      <svc-trace-list .invoker=${ctx.invoker} .modelId=${ctx.modelId} kind=${c.type === "auditTimeline"
        ? "audit"
        : "explain"}
        path=${typeof c.bind === "string" ? c.bind : "$"} limit=${typeof c.limit === "number" ? c.limit : 10}
        revision=${ctx.revision} ?showConstraints=${c.showConstraints !== false}></svc-trace-list>
    </details>
  `;

const validationSummary: Renderer = (c, ctx) => {
  const prefix = typeof c.pathPrefix === "string" ? c.pathPrefix : "";
  const max = typeof c.maxItems === "number" ? c.maxItems : Infinity;
  const entries = ctx.allMessages().filter(([address]) => address.startsWith(prefix) || address === "")
    .flatMap(([address, list]) => list.map((m) => ({ address, ...m }))).slice(0, max);
  return html`<div class="validation-summary ${
    c.variant ?? ""
  }" data-component=${c.id} role="status" aria-live="polite">
    ${c.label ? html`<strong>${c.label}</strong>` : nothing}
    ${
    entries.length
      ? html`<ul>${entries.map((e) => html`<li class=${e.severity}>${e.text}</li>`)}</ul>`
      : html`<p class="empty">${c.emptyText ?? "No problems."}</p>`
  }
  </div>`;
};

/** People's words for the effect phases (SPEC.md "Effect status phases"). */
export const PHASE_LABELS: Record<string, string> = {
  pending: "Queued",
  in_flight: "Running",
  applied: "Done",
  failed: "Failed",
  cancelled: "Cancelled",
  blocked: "Awaiting approval",
};

const effectStatus: Renderer = (c, ctx) => {
  const status = c.value !== null && typeof c.value === "object" && !Array.isArray(c.value) ? c.value : null;
  const phase = typeof status?.phase === "string" ? status.phase : null;
  const error = c.error ?? status?.error;
  const retry = c.showRetry === true &&
    (phase === "failed" || phase === "cancelled" || c.onRetry !== undefined);
  // In a section list row, what became of the Retry's action (its row changed meanwhile) is told beside it.
  const { at, told, describedBy } = handlerTold(c, ctx);
  return html`<div class="effect-status" data-component=${c.id} role="status">
    <span class="caption">${nameOf(c)}</span>
    <span class="chip ${phase ?? "none"}">${phase ? PHASE_LABELS[phase] ?? phase : "Not run yet"}</span>
    ${error ? html`<span class="error-text">${formatValue(error)}</span>` : nothing}
    ${
    retry
      ? html`
        <button type="button" class="btn" aria-describedby=${describedBy}
          @click=${() => ctx.runHandler(c.onRetry, at)}>${c.retryLabel ?? "Retry"}</button>${told}
      `
      : nothing
  }
  </div>`;
};

/** Renderers of the panel kinds by component type. */
export const PANEL_RENDERERS: Record<string, Renderer> = {
  explainPanel: tracePanel,
  auditTimeline: tracePanel,
  validationSummary,
  effectStatus,
};
