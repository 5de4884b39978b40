/// <reference lib="dom" />
/**
 * `<svc-pairing>`: the approve page of a browser pairing. It shows the code
 * the link carried and asks the person to check it against the one the agent
 * shows (or to type it, for a bare link), then Approve or Deny. An approval
 * fires `svc-paired` with the browser's session; a denial tells the person
 * the agent will hear of it. A server with an API key asks for the key first.
 *
 * @module
 */
import { html, LitElement, nothing, type PropertyValues, type TemplateResult } from "lit";
import { decidePairing } from "../host/pairing.ts";

/** `<svc-pairing>`. */
export class PairingPanel extends LitElement {
  static override properties = {
    code: {},
    baseUrl: { attribute: false },
    apiKey: { attribute: false },
    problem: { state: true },
    needsKey: { state: true },
    busy: { state: true },
    denied: { state: true },
    over: { state: true },
  };
  /** The code from the link; empty when the person types it. */
  code = "";
  /** The server that serves the page. */
  baseUrl = "";
  /** The API key already entered in this tab, if any. */
  apiKey = "";
  problem = "";
  needsKey = false;
  busy = false;
  denied = false;
  /** The pairing is gone (410): its Approve and Deny have nothing left to decide, so they go. */
  over = false;

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    // Another link's code: what was said about the previous one (refused, denied) no longer holds.
    if (changed.has("code")) {
      this.problem = "";
      this.denied = false;
      this.over = false;
    }
  }

  async #decide(decision: "approve" | "deny", form: HTMLFormElement): Promise<void> {
    const data = new FormData(form);
    const userCode = String(this.code || data.get("userCode") || "").trim();
    if (!userCode) {
      this.problem = "Type the code the agent shows.";
      return;
    }
    const key = String(data.get("apiKey") ?? this.apiKey ?? "");
    this.busy = true;
    this.problem = "";
    const outcome = await decidePairing(this.baseUrl, decision, userCode, key || undefined);
    this.busy = false;
    if (outcome.kind === "approved") {
      this.dispatchEvent(
        new CustomEvent("svc-paired", { bubbles: true, detail: { ...outcome.session, apiKey: key } }),
      );
    } else if (outcome.kind === "denied") {
      this.denied = true;
    } else {
      this.problem = outcome.message;
      this.needsKey ||= outcome.needsKey === true;
      this.over = outcome.over === true;
    }
  }

  protected override render(): TemplateResult {
    if (this.denied) {
      return html`
        <section class="pairing" aria-labelledby="pairing-title">
          <h2 id="pairing-title">Pairing denied</h2>
          <p role="status">You denied the pairing. The agent is told so and cannot reach this tab.</p>
          <p><a href="./">Open the playground</a></p>
        </section>
      `;
    }
    const submit = (e: SubmitEvent) => {
      e.preventDefault();
      const decision = (e.submitter as HTMLButtonElement | null)?.value === "deny" ? "deny" : "approve";
      void this.#decide(decision, e.target as HTMLFormElement);
    };
    return html`
      <section class="pairing" aria-labelledby="pairing-title">
        <h2 id="pairing-title">Pair with an agent</h2>
        <p>An agent working through MCP asks to build models with you: once you approve, this tab shows the
              models of its session live, and your edits reach the agent. Approve only if you asked an agent to
              pair and the code below is the one it shows you.</p>
        <form @submit=${submit}>
              ${this.code
                ? html`
                  <p class="pairing-code-row"><span id="code-label">Pairing code</span>
                                <output class="pairing-code" aria-labelledby="code-label">${this
                                  .code}</output></p>
                  <p class="muted">Does the agent show the same code? If not, deny.</p>
                `
                : html`<label class="stack">Pairing code
              <input name="userCode" autocomplete="off" autocapitalize="characters" spellcheck="false"
                placeholder="XXXX-XXXX" required></label>`}
              ${this.needsKey
                ? html`<label class="stack">API key
              <input name="apiKey" type="password" autocomplete="off" required .value=${this.apiKey}></label>`
                : nothing}
              ${this.over ? nothing : html`
                <div class="actions">
                  <button type="submit" class="primary" value="approve" ?disabled=${this
                    .busy}>Approve</button>
                  <button type="submit" class="danger" value="deny" formnovalidate ?disabled=${this
                    .busy}>Deny</button>
                </div>
              `}
              ${this.problem ? html`<p class="problem" role="alert">${this.problem}</p>` : nothing}
            </form>
      </section>
    `;
  }
}
customElements.define("svc-pairing", PairingPanel);
