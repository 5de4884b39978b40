/// <reference lib="dom" />
/**
 * The live merged state of the model (re-read after every change) and its
 * commit history, with the state at any retained point in time.
 *
 * @module
 */
import { html, type TemplateResult } from "lit";
import { type Json, operations } from "../../engine/mod.ts";
import { ModelPanel } from "./model_panel.ts";

/**
 * A commit's instant in the person's own time zone, short ("Nov 28, 2026, 05:50:19.935"): the ISO form made the
 * history's select too wide for a phone. The milliseconds tell apart commits of one second.
 */
export function commitTime(at: string): string {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return at;
  return date.toLocaleString(undefined, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    fractionalSecondDigits: 3,
    hourCycle: "h23",
  });
}

/** `<svc-state-panel>`. */
export class StatePanel extends ModelPanel {
  static override properties = {
    ...ModelPanel.properties,
    state: { state: true },
    history: { state: true },
    at: { state: true },
  };
  state: Json | undefined = undefined;
  history: string[] = [];
  at = "";

  protected override async load(): Promise<void> {
    const invoker = this.connection!.invoker;
    this.history = await invoker.invoke(operations.getHistory, { id: this.modelId });
    if (this.at && !this.history.includes(this.at)) this.at = "";
    this.state = await invoker.invoke(operations.getState, { id: this.modelId, at: this.at || undefined });
  }

  protected override render(): TemplateResult {
    return html`<h2>Merged state</h2>
      <label class="inline">Show
        <select @change=${(e: Event) => {
      this.at = (e.target as HTMLSelectElement).value;
      void this.run(() => this.load());
    }}>
          <option value="">now (live)</option>
          ${
      [...this.history].reverse().map((t) =>
        html`<option value=${t} ?selected=${t === this.at}>after the commit of ${commitTime(t)}</option>`
      )
    }
        </select></label>
      ${this.problemLine()}
      <pre class="code" tabindex="0" aria-label="Merged state" data-testid="state">${
      JSON.stringify(this.state ?? null, null, 2)
    }</pre>
      <p class="muted">${this.history.length} commits in history.</p>`;
  }
}
customElements.define("svc-state-panel", StatePanel);
