/**
 * Renderers of the data record kinds: a table (with paging when `pageSize`
 * is set) and charts drawn as SVG (bar, line, area, pie; a sparkline draws
 * the first series only). A chart carries its data as an accessible name.
 *
 * @module
 */
import { html, nothing, svg, type TemplateResult } from "lit";
import type { EvaluatedComponent, Json } from "../../engine/mod.ts";
import { nameOf } from "./field.ts";
import { formatValue } from "./format.ts";
import type { ViewContext } from "./view_context.ts";

type Row = Record<string, Json>;

/** The value at a column or series `field` of a row (an address relative to the row, or a name). */
export function cell(row: Json, fieldPath: Json | undefined): Json | undefined {
  if (typeof fieldPath !== "string") return undefined;
  let current: Json | undefined = row;
  for (const part of fieldPath.replace(/^\$(\[\*\])?\.?/, "").replace(/^[^.]*\[\*\]\./, "").split(".")) {
    if (!part) continue;
    current = current !== null && typeof current === "object" && !Array.isArray(current)
      ? current[part]
      : undefined;
  }
  return current;
}

function rowsOf(c: EvaluatedComponent): Row[] {
  return Array.isArray(c.value)
    ? c.value.filter((r): r is Row => r !== null && typeof r === "object") as Row[]
    : [];
}

const table = (c: EvaluatedComponent, ctx: ViewContext): TemplateResult => {
  const columns = (Array.isArray(c.tableColumns) ? c.tableColumns : []) as Row[];
  const rows = rowsOf(c);
  const size = typeof c.pageSize === "number" && c.pageSize > 0 ? c.pageSize : rows.length || 1;
  const pages = Math.max(1, Math.ceil(rows.length / size));
  const key = `${c.id}:page`;
  const page = Math.min(ctx.uiState.get(key) ?? 0, pages - 1);
  const shown = rows.slice(page * size, page * size + size);
  // A column of numbers is right-aligned as a whole, its header too (the header sat apart, at the left).
  const numeric = columns.map((col) => {
    const values = shown.map((row) => cell(row, col.field)).filter((v) => v !== undefined && v !== null);
    return values.length > 0 && values.every((v) => typeof v === "number");
  });
  const go = (p: number) => {
    ctx.uiState.set(key, p);
    ctx.requestUpdate();
  };
  return html`<div class="table-wrap" data-component=${c.id}>
    <table>
      <caption>${nameOf(c)}</caption>
      <thead><tr>${
    columns.map((col, i) =>
      html`<th scope="col" class=${numeric[i] ? "num" : ""}>${col.header ?? col.field}</th>`
    )
  }</tr></thead>
      <tbody>${
    rows.length
      ? shown.map((row) =>
        html`<tr>${
          columns.map((col, i) =>
            html`<td class=${numeric[i] ? "num" : ""}>${
              formatValue(cell(row, col.field), col.format, col.currency)
            }</td>`
          )
        }</tr>`
      )
      : html`
        <tr>
          <td colspan=${columns.length || 1} class="empty">No rows yet</td>
        </tr>
      `
  }</tbody>
    </table>
    ${
    pages > 1
      ? html`<div class="pager"><button type="button" ?disabled=${page === 0} @click=${() =>
        go(page - 1)}>Previous</button>
        <span>Page ${page + 1} of ${pages}</span>
        <button type="button" ?disabled=${page >= pages - 1} @click=${() => go(page + 1)}>Next</button></div>`
      : nothing
  }
  </div>`;
};

const COLORS = ["#2563eb", "#16a34a", "#d97706", "#dc2626", "#7c3aed", "#0891b2"];

const chart = (c: EvaluatedComponent): TemplateResult => {
  const rows = rowsOf(c);
  const allSeries = (Array.isArray(c.chartSeries) ? c.chartSeries : []) as Row[];
  const series = c.type === "sparkline" ? allSeries.slice(0, 1) : allSeries;
  const labels = rows.map((r, i) => formatValue(cell(r, c.chartX) ?? i + 1));
  const values = series.map((s) => rows.map((r) => Number(cell(r, s.field)) || 0));
  const summary = `${nameOf(c)}: ` +
    (series.length
      ? series.map((s, i) =>
        `${s.label ?? s.field} ${labels.map((l, j) => `${l} ${values[i][j]}`).join(", ")}`
      ).join("; ")
      : "no series");
  const w = c.type === "sparkline" ? 120 : 320;
  const h = c.type === "sparkline" ? 30 : 160;
  // The scale spans zero: bars rise from it, negative values go below it.
  const lowest = Math.min(0, ...values.flat());
  const highest = Math.max(lowest < 0 ? 0 : 1, ...values.flat());
  const bottom = lowest < 0 ? 4 : 0;
  const y = (v: number) => 4 + ((highest - v) / (highest - lowest)) * (h - 4 - bottom);
  const zero = y(0);
  const type = c.type === "sparkline" ? "line" : String(c.chartType ?? "bar");
  let body;
  if (!rows.length) {
    body = svg`<text x=${w / 2} y=${h / 2} text-anchor="middle" class="empty">No data yet</text>`;
  } else if (type === "pie") {
    // A negative value has no slice.
    const slices = (values[0] ?? []).map((v) => Math.max(0, v));
    const total = slices.reduce((a, b) => a + b, 0) || 1;
    let angle = 0;
    body = slices.map((v, i) => {
      const a0 = angle;
      angle += (v / total) * Math.PI * 2;
      const r = h / 2 - 4;
      const [x0, y0, x1, y1] = [Math.sin(a0), -Math.cos(a0), Math.sin(angle), -Math.cos(angle)].map((t) =>
        t * r
      );
      const large = angle - a0 > Math.PI ? 1 : 0;
      return svg`<path fill=${COLORS[i % COLORS.length]} d=${`M${h / 2} ${
        h / 2
      } l${x0} ${y0} A${r} ${r} 0 ${large} 1 ${h / 2 + x1} ${h / 2 + y1} z`}/>`;
    });
  } else {
    const step = w / Math.max(1, rows.length);
    body = values.map((vs, s) => {
      const color = String(series[s].color ?? COLORS[s % COLORS.length]);
      const point = (v: number, i: number) => `${(i + 0.5) * step},${y(v)}`;
      if (type === "bar") {
        const bw = (step * 0.8) / values.length;
        return vs.map((v, i) =>
          svg`
            <rect fill=${color} x=${i * step + step * 0.1 + s * bw} width=${bw} y=${Math.min(y(v), zero)}
              height=${Math.abs(y(v) - zero)}/>
          `
        );
      }
      const line = vs.map(point).join(" ");
      return type === "area"
        ? svg`
          <polygon fill=${color} fill-opacity="0.3" stroke=${color}
            points=${`${0.5 * step},${zero} ${line} ${(vs.length - 0.5) * step},${zero}`}/>
        `
        : svg`<polyline fill="none" stroke=${color} stroke-width="2" points=${line}/>${
          // Points as dots too: a single value draws no line.
          vs.map((v, i) => {
            const [x, y] = point(v, i).split(",");
            return svg`<circle cx=${x} cy=${y} r="2.5" fill=${color}/>`;
          })}`;
    });
  }
  return html`<figure class="chart ${c.type}" data-component=${c.id}>
    <svg viewBox=${`0 0 ${w} ${h}`} role="img" aria-label=${summary}>${body}${
    lowest < 0 && type !== "pie"
      ? svg`<line class="baseline" x1="0" x2=${w} y1=${zero} y2=${zero}/>`
      : nothing
  }</svg>
    ${
    c.type === "sparkline" ? nothing : html`<figcaption>${nameOf(c)}${
      series.length > 1
        ? html`
          — ${series.map((s, i) =>
            html`
              <span class="key" data-color=${i}>${s.label ?? s.field}</span>
            `
          )}
        `
        : nothing
    }</figcaption>`
  }
  </figure>`;
};

/** Renderers of the data kinds by component type. */
export const DATA_RENDERERS: Record<string, (c: EvaluatedComponent, ctx: ViewContext) => TemplateResult> = {
  dataTable: table,
  dataChart: chart,
  sparkline: chart,
};
