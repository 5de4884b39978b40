/// <reference lib="dom" />
/**
 * Where the playground's models live: in this tab (the engine and IndexedDB,
 * no server) or on a server (its URL and optional API key; REST through the
 * remote invoker, live updates over its WebSocket feed). Emits
 * `svc-connect` with `{mode, baseUrl, apiKey}`.
 *
 * @module
 */
import { html, LitElement, nothing, type TemplateResult } from "lit";

/** What the person chose. */
export interface ConnectionChoice {
  mode: "tab" | "server";
  baseUrl: string;
  /** The API key, or a paired session's token. */
  apiKey: string;
  /** The namespace of the pairing session this tab joined (README "Browser pairing"). */
  paired?: string;
  /** The person chose it in the form (not the page's own start): a later visit keeps it. */
  chosen?: boolean;
}

/** A server URL as typed, without the spaces and trailing slashes that do not change the server. */
const serverOf = (url: string) => url.trim().replace(/\/+$/, "");

/** `<svc-connection-form>`. */
export class ConnectionForm extends LitElement {
  static override properties = {
    choice: { attribute: false },
    status: {},
    keyNeeded: { attribute: false },
    inTab: { attribute: false },
    mode: { state: true },
    url: { state: true },
  };
  choice: ConnectionChoice = { mode: "tab", baseUrl: "", apiKey: "" };
  /** The current connection, for people. */
  status = "";
  /** The server known to ask for its API key (it answered 401), `""` for none: its key field is required. */
  keyNeeded = "";
  /** The playground runs on this tab's engine now: choosing the tab again would change nothing. */
  inTab = false;
  mode: "tab" | "server" = "tab";
  /** The server URL field's value. */
  url = "";

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has("choice")) {
      this.mode = this.choice.mode;
      this.url = this.choice.baseUrl ||
        (location.protocol.startsWith("http") ? location.origin : "http://localhost:8080");
    }
  }

  #submit(e: Event): void {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const data = new FormData(form);
    const choice: ConnectionChoice = {
      mode: this.mode,
      baseUrl: String(data.get("baseUrl") ?? "").trim(),
      apiKey: String(data.get("apiKey") ?? ""),
      chosen: true,
    };
    this.dispatchEvent(new CustomEvent("svc-connect", { bubbles: true, detail: choice }));
  }

  protected override render(): TemplateResult {
    const needsKey = this.keyNeeded !== "" && serverOf(this.keyNeeded) === serverOf(this.url);
    return html`<form class="connection" @submit=${this.#submit} aria-labelledby="connection-title">
      <h2 id="connection-title" tabindex="-1">Where models run</h2>
      <label><input type="radio" name="mode" value="tab" .checked=${
      this.mode === "tab"
    } @change=${() => (this.mode = "tab")}>
        In this tab (offline, kept in this browser)</label>
      <label><input type="radio" name="mode" value="server" .checked=${
      this.mode === "server"
    } @change=${() => (this.mode = "server")}>
        On a server</label>
      ${
      this.mode === "server"
        ? html`
          <label class="stack">Server URL <input name="baseUrl" type="url" required .value=${this.url}
            @input=${(e: Event) => (this.url = (e.target as HTMLInputElement).value)}></label>
          <label class="stack">${needsKey ? "API key" : "API key (optional)"} <input name="apiKey"
            type="password" autocomplete="off" ?required=${needsKey} .value=${this.choice.apiKey}></label>
        `
        : nothing
    }
      ${
      // Already in use (after a session is ended or left too): the status line says so, no button offers it.
      this.mode === "tab" && this.inTab
        ? nothing
        : html`<button type="submit" class="primary">${
          this.mode === "server" ? "Connect" : "Use this tab"
        }</button>`}
      <p class="status" role="status">${this.status}</p>
    </form>`;
  }
}
customElements.define("svc-connection-form", ConnectionForm);
