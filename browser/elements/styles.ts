/**
 * The view renderer's stylesheet, adopted by every `<svc-view>` shadow root
 * (no inline styles, so a strict CSP holds). Colours and spacing come from
 * custom properties a host page may override (`--svc-accent`, `--svc-radius`…).
 *
 * @module
 */
import { css } from "lit";

/** Styles of `<svc-view>`. */
export const VIEW_STYLES = css`
  :host {
    --svc-accent: #1d4ed8;
    --svc-border: #cbd5e1;
    --svc-muted: #475569;
    --svc-bg: #ffffff;
    --svc-error: #b91c1c;
    --svc-warning: #92400e;
    --svc-radius: 6px;
    display: block;
    container-type: inline-size;
    font-size: 14px;
    line-height: 1.45;
    font-family: var(--svc-font, inherit);
    color: #0f172a;
  }
  h2 {
    font-size: 1.25rem;
    margin: 0 0 12px;
  }
  h3 {
    font-size: 1rem;
    margin: 0 0 8px;
  }
  h4 {
    font-size: 0.95rem;
    margin: 0 0 6px;
  }
  .body,
  .view-body {
    display: flex;
    flex-direction: column;
    gap: 12px;
  }
  .layout-horizontal {
    flex-direction: row;
    flex-wrap: wrap;
    align-items: flex-end;
  }
  .layout-grid {
    display: grid;
    gap: 12px 16px;
    align-items: start;
  }
  .layout-grid > .section-list,
  .layout-grid > .card,
  .layout-grid > .fieldset {
    min-width: 0;
  }
  @container (max-width: 560px) {
    .layout-grid {
      grid-template-columns: 1fr !important;
    }
  }
  .field {
    display: flex;
    flex-direction: column;
    gap: 4px;
    min-width: 0;
    border: 0;
    padding: 0;
    margin: 0;
  }
  .field label,
  legend,
  .caption {
    font-weight: 600;
    color: #1e293b;
  }
  .field.check {
    flex-direction: row;
    flex-wrap: wrap;
    align-items: center;
    gap: 8px;
  }
  .field.check > .messages,
  .field.check > .help {
    flex-basis: 100%;
  }
  .req {
    color: var(--svc-error);
  }
  input,
  select,
  textarea,
  button {
    font: inherit;
  }
  input:not([type=checkbox]):not([type=radio]):not([type=range]):not([type=file]),
  select,
  textarea {
    border: 1px solid var(--svc-border);
    border-radius: var(--svc-radius);
    padding: 6px 8px;
    background: #fff;
    min-width: 0;
    width: 100%;
    box-sizing: border-box;
  }
  input[readonly],
  textarea[readonly] {
    background: #f1f5f9;
    color: var(--svc-muted);
  }
  :focus-visible {
    outline: 2px solid var(--svc-accent);
    outline-offset: 2px;
  }
  [aria-invalid=true] {
    border-color: var(--svc-error) !important;
  }
  .with-unit {
    display: flex;
    align-items: center;
    gap: 6px;
  }
  .unit {
    color: var(--svc-muted);
  }
  .help {
    color: var(--svc-muted);
    font-size: 0.85em;
  }
  .messages {
    font-size: 0.9em;
  }
  .messages ul,
  .form-messages ul {
    list-style: none;
    margin: 0;
    padding: 0;
  }
  .label-row {
    display: flex;
    gap: 4px;
    align-items: baseline;
  }
  .field .option,
  .field .star,
  .field.check .help {
    font-weight: normal;
  }
  .messages .error,
  .validation-summary .error,
  .error-text,
  .component-error {
    color: var(--svc-error);
  }
  .messages .warning,
  .validation-summary .warning {
    color: var(--svc-warning);
  }
  .messages li::before {
    content: "⚠ ";
  }
  .options {
    display: flex;
    flex-wrap: wrap;
    gap: 4px 16px;
  }
  .option {
    display: inline-flex;
    gap: 6px;
    align-items: center;
    font-weight: normal;
  }
  .group-field {
    border: 0;
    padding: 0;
  }
  .fieldset {
    border: 1px solid var(--svc-border);
    border-radius: var(--svc-radius);
    padding: 12px;
    margin: 0;
    min-width: 0;
  }
  .fieldset > legend {
    padding: 0 4px;
  }
  .card {
    border: 1px solid var(--svc-border);
    border-radius: var(--svc-radius);
    padding: 12px;
    background: #f8fafc;
  }
  .toolbar,
  .buttonGroup {
    display: flex;
    gap: 8px;
    flex-wrap: wrap;
  }
  .btn,
  .add,
  .remove,
  .pager button,
  .menu-item,
  [role=tab] {
    border: 1px solid var(--svc-border);
    border-radius: var(--svc-radius);
    background: #fff;
    padding: 6px 12px;
    cursor: pointer;
  }
  .btn.primary,
  .add {
    background: var(--svc-accent);
    color: #fff;
    border-color: var(--svc-accent);
  }
  .btn.danger {
    background: var(--svc-error);
    color: #fff;
  }
  button:disabled {
    opacity: 0.55;
    cursor: not-allowed;
  }
  .add {
    align-self: flex-start;
  }
  .section-list {
    display: flex;
    flex-direction: column;
    gap: 8px;
  }
  .section-item {
    border: 1px dashed var(--svc-border);
    border-radius: var(--svc-radius);
    padding: 10px;
    display: flex;
    flex-direction: column;
    gap: 8px;
  }
  .remove {
    align-self: flex-end;
    color: var(--svc-error);
  }
  .empty {
    color: var(--svc-muted);
    font-style: italic;
    margin: 0;
  }
  .display output {
    font-weight: 600;
  }
  .label output {
    margin-left: 6px;
  }
  .badge {
    display: inline-block;
    padding: 2px 10px;
    border-radius: 999px;
    background: #e2e8f0;
    font-size: 0.85em;
    align-self: flex-start;
  }
  .badge.primary {
    background: #dbeafe;
  }
  .badge.success {
    background: #dcfce7;
  }
  .badge.warning {
    background: #fef3c7;
  }
  .badge.danger {
    background: #fee2e2;
  }
  .alert,
  .callout {
    border-left: 4px solid var(--svc-accent);
    background: #eff6ff;
    padding: 8px 12px;
    border-radius: var(--svc-radius);
  }
  .alert.warning,
  .callout.warning {
    border-color: #d97706;
    background: #fffbeb;
  }
  .alert.danger,
  .callout.danger {
    border-color: var(--svc-error);
    background: #fef2f2;
  }
  .alert.success,
  .callout.success {
    border-color: #16a34a;
    background: #f0fdf4;
  }
  .separator {
    border: 0;
    border-top: 1px solid var(--svc-border);
    width: 100%;
  }
  .stat {
    border: 1px solid var(--svc-border);
    border-radius: var(--svc-radius);
    padding: 10px 14px;
    background: #fff;
  }
  .stat-value {
    font-size: 1.6rem;
    font-weight: 700;
  }
  .delta.up {
    color: #15803d;
  }
  .delta.down {
    color: var(--svc-error);
  }
  .kv dl {
    display: grid;
    gap: 4px 12px;
    margin: 4px 0 0;
  }
  .kv dt {
    color: var(--svc-muted);
  }
  .kv dd {
    margin: 0;
    font-weight: 600;
    text-align: right;
  }
  .progress {
    display: flex;
    gap: 8px;
    align-items: center;
  }
  .progress progress {
    flex: 1;
  }
  .gauge {
    margin: 0;
    max-width: 180px;
  }
  .gauge .track {
    fill: none;
    stroke: #e2e8f0;
    stroke-width: 10;
  }
  .gauge .fill {
    fill: none;
    stroke: var(--svc-accent);
    stroke-width: 10;
  }
  .gauge figcaption {
    text-align: center;
  }
  table {
    border-collapse: collapse;
    width: 100%;
  }
  caption {
    text-align: left;
    font-weight: 600;
    padding-bottom: 4px;
  }
  th,
  td {
    border-bottom: 1px solid var(--svc-border);
    padding: 4px 8px;
    text-align: left;
  }
  th.num,
  td.num {
    text-align: right;
    font-variant-numeric: tabular-nums;
  }
  .pager {
    display: flex;
    gap: 8px;
    align-items: center;
    margin-top: 6px;
  }
  .chart {
    margin: 0;
  }
  .chart svg {
    width: 100%;
    max-width: 420px;
    height: auto;
    background: #f8fafc;
    border-radius: var(--svc-radius);
  }
  .chart.sparkline svg {
    max-width: 140px;
  }
  .chart line.baseline {
    stroke: var(--svc-muted);
    stroke-width: 1;
  }
  .chart text.empty {
    fill: var(--svc-muted);
    font-size: 12px;
  }
  .json pre,
  .trace-list {
    background: #0f172a;
    color: #e2e8f0;
    padding: 8px;
    border-radius: var(--svc-radius);
    overflow: auto;
    max-height: 260px;
    font-size: 12px;
  }
  .trace-list {
    list-style: decimal inside;
    margin: 0;
  }
  .trace-panel summary,
  .collapsible summary,
  .json summary {
    cursor: pointer;
    font-weight: 600;
  }
  .tabs [role=tablist] {
    display: flex;
    gap: 4px;
    border-bottom: 1px solid var(--svc-border);
    margin-bottom: 10px;
  }
  [role=tab] {
    border-bottom: 0;
    border-radius: var(--svc-radius) var(--svc-radius) 0 0;
  }
  [role=tab][aria-selected=true] {
    background: var(--svc-accent);
    color: #fff;
    border-color: var(--svc-accent);
  }
  .menu ul,
  .menu ol {
    display: flex;
    gap: 6px;
    list-style: none;
    padding: 0;
    margin: 0;
    flex-wrap: wrap;
  }
  .menu.vertical ul,
  .menu.vertical ol {
    flex-direction: column;
  }
  .menu.breadcrumb li + li::before {
    content: "›";
    margin-right: 6px;
    color: var(--svc-muted);
  }
  .menu-item[aria-current] {
    background: var(--svc-accent);
    color: #fff;
  }
  .wizard-steps {
    display: flex;
    gap: 12px;
    flex-wrap: wrap;
    list-style: none;
    padding: 0;
    margin: 0 0 10px;
    color: var(--svc-muted);
  }
  .wizard-steps [aria-current] {
    color: inherit;
    font-weight: 600;
  }
  .wizard-step {
    outline: none;
  }
  .wizard-nav {
    display: flex;
    gap: 8px;
    align-items: center;
    margin-top: 12px;
  }
  .step-no {
    display: inline-block;
    width: 1.4em;
    color: var(--svc-muted);
  }
  .effect-status {
    display: flex;
    gap: 8px;
    align-items: center;
    flex-wrap: wrap;
  }
  .chip {
    border-radius: 999px;
    padding: 2px 10px;
    background: #e2e8f0;
    font-size: 0.85em;
  }
  .chip.applied {
    background: #dcfce7;
  }
  .chip.failed {
    background: #fee2e2;
  }
  .chip.in_flight {
    background: #dbeafe;
  }
  .rating {
    display: flex;
    gap: 4px;
  }
  .star input {
    position: absolute;
    opacity: 0;
  }
  .star {
    display: inline-block;
    min-width: 2em;
    text-align: center;
    padding: 2px 6px;
    border: 1px solid var(--svc-border);
    border-radius: 999px;
    cursor: pointer;
    font-weight: normal;
  }
  .star.on {
    background: #f59e0b;
    border-color: #d97706;
    color: #1c1917;
  }
  .star:focus-within {
    outline: 2px solid var(--svc-accent);
  }
  .slider {
    display: flex;
    gap: 8px;
    align-items: center;
  }
  .slider input {
    flex: 1;
  }
  .range {
    display: flex;
    gap: 12px;
    flex-wrap: wrap;
  }
  .view-error,
  .form-messages {
    border: 1px solid var(--svc-error);
    background: #fef2f2;
    color: var(--svc-error);
    padding: 8px 12px;
    border-radius: var(--svc-radius);
  }
  .validation-summary ul {
    margin: 4px 0 0;
    padding-left: 18px;
  }
  .image.empty {
    color: var(--svc-muted);
  }
`;
