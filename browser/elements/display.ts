/**
 * Renderers of the display record kinds: label, static text, badge (badge,
 * alert, callout), separator, image, link, progress (bar, gauge), stat tile
 * (stat tile, metric), JSON viewer and key-value list.
 *
 * @module
 */
import { html, nothing, svg, type TemplateResult } from "lit";
import { cssomStyle } from "./cssom_style.ts";
import { unsafeHTML } from "lit/directives/unsafe-html.js";
import type { EvaluatedComponent, Json } from "../../engine/mod.ts";
import { nameOf } from "./field.ts";
import { formatValue } from "./format.ts";
import { markdownToHtml } from "./markdown.ts";
import type { ViewContext } from "./view_context.ts";

type Renderer = (c: EvaluatedComponent, ctx: ViewContext) => TemplateResult;

const str = (v: Json | undefined): string | undefined => typeof v === "string" ? v : undefined;
const num = (v: Json | undefined): number | undefined => typeof v === "number" ? v : undefined;

/** What a display component shows: its bound value, else its text. */
function shown(c: EvaluatedComponent): Json | undefined {
  return c.value !== undefined ? c.value : c.text;
}

const label: Renderer = (c) =>
  html`<div class="display label" data-component=${c.id}>
    ${c.label ? html`<span class="caption">${c.label}</span>` : nothing}
    <output>${formatValue(shown(c), c.format, c.currency)}</output>
  </div>`;

const staticText: Renderer = (c) => {
  const text = formatValue(shown(c));
  const body = c.format === "text"
    ? html`<p>${text}</p>`
    : c.format === "html"
    ? unsafeHTML(text)
    : unsafeHTML(markdownToHtml(text));
  return html`<div class="static-text" data-component=${c.id}>${body}</div>`;
};

const badge: Renderer = (c) => {
  const variant = str(c.variant) ?? (c.type === "badge" ? "secondary" : "primary");
  const text = formatValue(shown(c));
  if (c.type === "badge") {
    if (!text) return html``;
    return html`<span class="badge ${variant}" data-component=${c.id}>${
      c.label ? `${c.label}: ` : ""
    }${text}</span>`;
  }
  return html`<div class="${c.type} ${variant}" role=${
    c.type === "alert" ? "status" : "note"
  } data-component=${c.id}>
    ${
    c.label
      ? html`
        <strong>${c.label}</strong>
      `
      : nothing
  }${text}</div>`;
};

const separator: Renderer = (c) =>
  c.type === "spacer"
    ? html`
      <div class="spacer" data-component=${c.id} style=${cssomStyle({ height: `${num(c.size) ?? 16}px` })}
        aria-hidden="true"></div>
    `
    : html`<hr class="separator" data-component=${c.id}>`;

const image: Renderer = (c, ctx) => {
  const src = str(c.src);
  const url = src && ctx.imageUrl(src);
  if (!url) return html`<div class="image empty" data-component=${c.id}>${c.alt ?? "No image"}</div>`;
  return html`
    <img class="image" data-component=${c.id} src=${url} alt=${str(c.alt) ?? nameOf(c)}
      width=${num(c.width) ?? nothing} height=${num(c.height) ?? nothing}
      style=${cssomStyle({ objectFit: str(c.fit) ?? "" })}>
  `;
};

/** The schemes a link may open: the web, mail, and the page's own (a relative address). */
const LINK_SCHEMES = new Set(["http:", "https:", "mailto:"]);

/**
 * Whether an address is one a link may open. The model's data and the view
 * come from strangers: a `javascript:` address would run script in the page
 * (an embed has no CSP to stop it). The browser's own URL parser decides, so
 * the tabs, line breaks and case it ignores in a scheme are ignored here too.
 */
function openable(href: string): boolean {
  try {
    const { protocol } = new URL(href, document.baseURI);
    return LINK_SCHEMES.has(protocol) || protocol === location.protocol;
  } catch {
    return false;
  }
}

const link: Renderer = (c) => {
  const href = str(c.value) ?? str(c.href) ?? "#";
  const text = formatValue(c.text ?? c.label ?? href);
  if (!openable(href)) {
    return html`
      <span class="link refused" data-component=${c.id}
        title="Only http(s) and mailto links open">${text}</span>
    `;
  }
  const blank = c.target === "_blank";
  return html`
    <a class="link" data-component=${c.id} href=${href} target=${str(c.target) ?? nothing}
      rel=${blank ? "noopener noreferrer" : nothing}>${text}</a>
  `;
};

const progress: Renderer = (c) => {
  const min = num(c.min) ?? 0;
  const max = num(c.max) ?? 100;
  const value = num(c.value) ?? min;
  const share = max > min ? Math.min(1, Math.max(0, (value - min) / (max - min))) : 0;
  const caption = c.format === "value" ? formatValue(value) : `${Math.round(share * 100)}%`;
  const name = nameOf(c);
  if (c.type === "gauge") {
    const angle = Math.PI * (1 - share);
    const x = 50 + 40 * Math.cos(angle);
    const y = 50 - 40 * Math.sin(angle);
    return html`
      <figure class="gauge" data-component=${c.id} role="meter" aria-label=${name}
        aria-valuenow=${value} aria-valuemin=${min} aria-valuemax=${max}>
        <svg viewBox="0 0 100 60" aria-hidden="true">
              ${svg`
                <path d="M10 50 A40 40 0 0 1 90 50" class="track" />
              `}
              ${share > 0
                ? svg`
                  <path d="M10 50 A40 40 0 0 1 ${x.toFixed(2)} ${y.toFixed(2)}" class="fill" />
                `
                : nothing}
            </svg>
        <figcaption>${c.label
          ? html`
            ${c.label}:
          `
          : nothing}${c.showValue === false ? nothing : caption}</figcaption>
      </figure>
    `;
  }
  return html`<div class="progress" data-component=${c.id}>
    <span class="caption" id=${`${c.id}-progress`}>${name}</span>
    <progress max=${max - min} .value=${value - min} aria-labelledby=${`${c.id}-progress`}></progress>
    ${c.showValue === false ? nothing : html`<span class="value">${caption}</span>`}
  </div>`;
};

const TREND: Record<string, string> = { up: "▲", down: "▼", flat: "▶" };

const statTile: Renderer = (c) => {
  const trend = str(c.trend);
  return html`<div class="stat ${str(c.variant) ?? ""}" data-component=${c.id} title=${
    str(c.tooltip) ?? nothing
  }>
    <div class="caption">${nameOf(c)}</div>
    <div class="stat-value">${formatValue(c.value, c.format, c.currency) || "—"}</div>
    ${
    c.delta !== undefined || trend
      ? html`<div class="delta ${trend ?? ""}">${
        trend && TREND[trend]
          ? html`
            <span aria-label=${trend}>${TREND[trend]}</span>
          `
          : nothing
      }${formatValue(c.delta, c.format, c.currency)}</div>`
      : nothing
  }
    ${c.caption !== undefined ? html`<div class="help">${formatValue(c.caption)}</div>` : nothing}
  </div>`;
};

/** JSON text of a value, containers deeper than `maxDepth` summarised. */
export function jsonText(value: Json | undefined, maxDepth = Infinity): string {
  const cut = (v: Json | undefined, depth: number): Json | undefined => {
    if (v === null || typeof v !== "object") return v;
    if (depth >= maxDepth) {
      return Array.isArray(v)
        ? `<array with ${v.length} items>`
        : `<object with ${Object.keys(v).length} fields>`;
    }
    if (Array.isArray(v)) return v.map((x) => cut(x, depth + 1) ?? null);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cut(x, depth + 1) ?? null]));
  };
  return JSON.stringify(cut(value, 0) ?? null, null, 2);
}

const jsonViewer: Renderer = (c) =>
  html`
    <details class="json" data-component=${c.id} ?open=${c.collapsed !== true}>
      <summary>${nameOf(c)}</summary>
      <pre tabindex="0">${jsonText(c.value, num(c.maxDepth))}</pre>
    </details>
  `;

const keyValue: Renderer = (c) => {
  const items = Array.isArray(c.items) ? c.items as Record<string, Json>[] : [];
  const columns = num(c.columns) ?? 1;
  return html`<div class="kv" data-component=${c.id}>
    ${c.label ? html`<div class="caption">${c.label}</div>` : nothing}
    <dl style=${cssomStyle({ gridTemplateColumns: `repeat(${columns}, auto 1fr)` })}>${
    items.map((item) =>
      html`
        <dt>${item.label ?? ""}</dt>
        <dd>${formatValue(item.value ?? item.text, item.format, item.currency) || "—"}</dd>
      `
    )
  }</dl>
  </div>`;
};

/** Renderers of the display kinds by component type. */
export const DISPLAY_RENDERERS: Record<string, Renderer> = {
  label,
  staticText,
  badge,
  alert: badge,
  callout: badge,
  separatorLine: separator,
  spacer: separator,
  image,
  link,
  progressBar: progress,
  gauge: progress,
  statTile,
  metric: statTile,
  jsonViewer,
  keyValueList: keyValue,
  summaryList: keyValue,
};
