/// <reference lib="dom" />
/**
 * `<svc-playground>`: the playground app, one app in two modes (models in this
 * tab over IndexedDB, or on a server). The sidebar chooses the connection,
 * lists models and offers the start page ("describe your model", which
 * generates on a server with an LLM provider, and the examples); the main
 * area shows the selected model's panels: its rendered view beside the live
 * merged state, mutate, explain, graph, tests, audit, evolve (by hand or with
 * AI), snapshots and files. The selected model and panel live in the URL
 * fragment, the connection choice in local storage (the API key only for the
 * session), so a reload comes back to the same place. Without a saved choice
 * the page starts on the server that served it (which marks the page), else
 * in the tab (a static host, a file, an embedding page). In the tab, another tab
 * over the same database shows through without a reload: the models it
 * creates or deletes, and its writes to the selected one.
 *
 * At `/pair` (a pairing link) the main area is the approve page
 * (`<svc-pairing>`); once the person approves, the tab connects to the server
 * with the session's token, shows a "Paired" badge, and follows the session's
 * models: new ones appear within seconds, and the first one the agent creates
 * opens by itself. A tab whose session moved to another tab or ended lets go
 * of it and says so.
 *
 * @module
 */
import { html, LitElement, nothing, type TemplateResult } from "lit";
import { type ModelSpec, operations, ServiceError } from "../../engine/mod.ts";
import "../elements/view_element.ts";
import { type Connection, openServerConnection, openTabConnection } from "../host/connection.ts";
import { goneMessage } from "../host/feed.ts";
import { endPairing, type PairedSession, takePairingCode } from "../host/pairing.ts";
import "./audit_panel.ts";
import type { ConnectionChoice } from "./connection_form.ts";
import "./connection_form.ts";
import "./evolve_panel.ts";
import "./explain_panel.ts";
import "./gallery.ts";
import "./generate_panel.ts";
import "./graph_panel.ts";
import "./mutate_panel.ts";
import "./new_model_panel.ts";
import "./pairing_panel.ts";
import "./snapshot_panel.ts";
import "./state_panel.ts";
import "./storage_notice.ts";
import "./tests_panel.ts";

/** The panels of a model, in tab order. */
export const PANELS = [
  ["view", "View"],
  ["mutate", "Mutate"],
  ["explain", "Explain"],
  ["graph", "Graph"],
  ["tests", "Tests"],
  ["audit", "Audit"],
  ["evolve", "Evolve"],
  ["files", "Snapshots & files"],
] as const;
type PanelId = typeof PANELS[number][0];

const CHOICE_KEY = "svc-playground:connection";
const KEY_KEY = "svc-playground:api-key";
/** The tab's pairing (server and namespace), kept beside its token: the other tabs' choices leave it alone. */
const PAIRING_KEY = "svc-playground:pairing";
/** How often a paired tab looks for models the agent created. */
const PAIRED_POLL_MS = 2000;

/** What a paired tab that no longer reaches its session says, by why (see `Playground.lost`). */
const LOST = {
  moved: {
    badge: "Session moved",
    heading: "Session moved to another tab",
    status: "Not connected: the session moved to another tab.",
    alert:
      "This session moved to another tab: a newer link from the agent was approved there. Use that tab; " +
      "this one no longer reaches the session's models.",
  },
  ended: {
    badge: "Session ended",
    heading: "Pairing session ended",
    status: "Not connected: the session ended.",
    alert: "The pairing session has ended (the server may have restarted). Ask the agent to pair again.",
  },
} as const;

/**
 * The server that served this page (server/routes/web.ts marks the page it serves), as the base URL of its
 * API; `""` for a page from elsewhere (a static host, a file, an embedding page).
 */
function servingServer(): string {
  return document.documentElement.dataset.server === "here"
    ? new URL(".", location.href).href.replace(/\/+$/, "")
    : "";
}

/** Where a visit starts without a saved choice: on `server` (the base URL of the page's own), else in the tab. */
function startChoice(server: string): ConnectionChoice {
  return { mode: server ? "server" : "tab", baseUrl: server, apiKey: "" };
}

/**
 * The tab's pairing, else the person's last choice (its key, for this browser session), else
 * {@link startChoice}. On the server's own page, a saved connection the person did not choose (earlier builds
 * saved every start, unmarked) yields to it.
 */
function savedChoice(server: string): ConnectionChoice {
  try {
    const apiKey = sessionStorage.getItem(KEY_KEY) ?? "";
    const pairing = JSON.parse(sessionStorage.getItem(PAIRING_KEY) ?? "null");
    if (pairing?.paired && apiKey) {
      return {
        mode: "server",
        baseUrl: String(pairing.baseUrl ?? ""),
        apiKey,
        paired: String(pairing.paired),
      };
    }
    const saved = JSON.parse(localStorage.getItem(CHOICE_KEY) ?? "null");
    if (saved?.mode === "server" || saved?.mode === "tab") {
      // A pairing an earlier build saved here may be another tab's (see PAIRING_KEY): start afresh.
      if (saved.paired || (server && !saved.chosen)) return startChoice(server);
      return {
        mode: saved.mode,
        baseUrl: String(saved.baseUrl ?? ""),
        apiKey,
        chosen: saved.chosen === true,
      };
    }
  } catch {
    // storage unavailable (file:// in some browsers): start afresh
  }
  return startChoice(server);
}

/**
 * What to do when a server on another origin could not be reached: a browser
 * withholds the answers of a server that does not list the page's origin,
 * which looks like a server that is not there.
 */
function corsHint(choice: ConnectionChoice): string {
  if (choice.mode !== "server") return "";
  let origin: string;
  try {
    origin = new URL(choice.baseUrl).origin;
  } catch {
    return "";
  }
  return origin === location.origin ? "" : ` (a server on another origin must list ${location.origin} in ` +
    "svc.http.cors.allowed-origins, and in svc.websocket.allowed-origins for live updates)";
}

/** The playground element. */
export class Playground extends LitElement {
  static override properties = {
    connection: { state: true },
    choice: { state: true },
    status: { state: true },
    models: { state: true },
    selected: { state: true },
    panel: { state: true },
    draft: { state: true },
    revision: { state: true },
    problem: { state: true },
    notice: { state: true },
    pairingCode: { state: true },
    warnings: { state: true },
    keyNeeded: { state: true },
    offerTab: { state: true },
    lost: { state: true },
  };
  connection?: Connection;
  choice: ConnectionChoice = startChoice("");
  status = "Starting…";
  models: string[] = [];
  selected = "";
  panel: PanelId = "view";
  /** Spec text in the new-model editor, or `null` when it is closed. */
  draft: string | null = null;
  revision = 0;
  problem = "";
  /** What happened to the models list (a model deleted elsewhere), beside the connection's status. */
  notice = "";
  /** On the approve page: the code the link carried (`""` for none); `null` elsewhere. */
  pairingCode: string | null = null;
  /** What the in-tab service warned about since it opened (stored models it could not load or rebuild). */
  warnings: readonly string[] = [];
  /** The server that answered 401 (its key missing or wrong), `""` for none: the form asks for its key. */
  keyNeeded = "";
  /** The server could not be reached: the problem offers the tab. */
  offerTab = false;
  /**
   * Why this paired tab no longer reaches its session, `""` while it does: a rejoin approved in another tab
   * moved the session there, or the session ended (either party, the operator, a server restart).
   */
  lost: "" | "moved" | "ended" = "";
  #unsubscribe?: () => void;
  /** Stops following the in-tab service's list of models. */
  #unlist?: () => void;
  #bump?: ReturnType<typeof setTimeout>;
  #poll?: ReturnType<typeof setInterval>;
  /** The status line of a healthy connection ("Connected: …"). */
  #connected = "";
  /**
   * The model the page's address named when it loaded, until a connection has it: a link to a server's model
   * opened in the tab (a static host, or the tab chosen earlier) opens once the person connects to that server.
   */
  #linked = "";
  /** What is wrong with the connection now, by what noticed it; the status line shows the latest. */
  #troubles = new Map<"feed" | "poll", string>();

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.pairingCode = takePairingCode(location, history);
    // The approve page does not start on the server: it asks for the key itself, and approving connects.
    this.choice = savedChoice(this.pairingCode === null ? servingServer() : "");
    const hash = new URLSearchParams(location.hash.slice(1));
    this.selected = this.#linked = hash.get("model") ?? "";
    const panel = hash.get("panel");
    if (PANELS.some(([id]) => id === panel)) this.panel = panel as PanelId;
    addEventListener("hashchange", this.#linkOpened);
    void this.#connect(this.choice);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    removeEventListener("hashchange", this.#linkOpened);
  }

  /**
   * Another pairing link opened in this approve page: only its fragment differs, so the browser does not
   * reload the page; its code replaces the one shown (and leaves the address bar, as on a load).
   */
  #linkOpened = (): void => {
    if (this.pairingCode === null) return;
    const code = takePairingCode(location, history);
    if (code) this.pairingCode = code;
  };

  /** Notes (a message) or clears (`null`) a trouble of the connection, and shows the status it leaves. */
  #trouble(source: "feed" | "poll", message: string | null): void {
    if ((this.#troubles.get(source) ?? null) === message) return;
    if (message === null) this.#troubles.delete(source);
    else this.#troubles.set(source, message);
    this.status = [...this.#troubles.values()].at(-1) ?? this.#connected;
  }

  async #connect(choice: ConnectionChoice): Promise<void> {
    this.problem = "";
    this.offerTab = false;
    this.lost = "";
    this.#troubles.clear();
    this.status = choice.mode === "tab" ? "Opening the in-tab engine…" : `Connecting to ${choice.baseUrl}…`;
    await this.#disconnect();
    try {
      const onWarning = (message: string) => (this.warnings = [...this.warnings, message]);
      const connection = choice.mode === "tab"
        ? await openTabConnection({ onWarning })
        : openServerConnection({
          baseUrl: choice.baseUrl,
          apiKey: choice.apiKey,
          onProblem: (message, final) => {
            this.#trouble("feed", message);
            // A paired feed closed for good: its session moved or ended. Asked now, the tab says which at
            // once, rather than show a stopped feed until the next poll.
            if (final && choice.paired) void this.#followSession();
          },
          onRecovered: () => this.#trouble("feed", null),
        });
      this.models = await connection.invoker.invoke(operations.listModels, {});
      this.connection = connection;
      this.choice = choice;
      this.#connected = `Connected: ${connection.label}${choice.paired ? " (paired session)" : ""}`;
      this.status = this.#connected;
      this.notice = "";
      try {
        // A pairing is this tab's, as its token is: kept in the tab's session storage, so that another tab's
        // choice saved meanwhile does not unpair it on a reload (before, both were in local storage).
        if (choice.paired) {
          sessionStorage.setItem(
            PAIRING_KEY,
            JSON.stringify({ baseUrl: choice.baseUrl, paired: choice.paired }),
          );
        } else {
          sessionStorage.removeItem(PAIRING_KEY);
          localStorage.setItem(
            CHOICE_KEY,
            JSON.stringify({ mode: choice.mode, baseUrl: choice.baseUrl, chosen: choice.chosen }),
          );
        }
        sessionStorage.setItem(KEY_KEY, choice.apiKey);
      } catch {
        // not kept: the next visit starts afresh
      }
      const wanted = this.#linked || this.selected;
      if (wanted === this.selected && this.models.includes(wanted)) {
        this.#linked = "";
        this.#watch(wanted);
      } else if (this.models.includes(wanted)) this.#select(wanted);
      else {
        this.#select(choice.paired ? this.models[0] ?? "" : "");
        // Say why the link shows the start page, rather than drop the model it named without a word.
        if (this.#linked && !choice.paired) {
          this.notice = choice.mode === "tab"
            ? `Model '${wanted}' is not in this tab: if a server holds it, choose "On a server" and Connect.`
            : `Model '${wanted}' is not on this server.`;
        }
      }
      // Other tabs over the same database create and delete models too: the service reports them.
      this.#unlist = connection.service?.subscribe((event) => {
        if (event.type === "created" || event.type === "deleted") void this.#refreshModels();
      });
      if (choice.paired) this.#poll = setInterval(() => void this.#followSession(), PAIRED_POLL_MS);
    } catch (err) {
      const unauthorized = err instanceof ServiceError && err.kind === "unauthorized";
      // A paired tab reloaded after its session moved or ended: its token is refused, and no key would do.
      if (unauthorized && choice.paired) return this.#lose(err);
      if (unauthorized) this.keyNeeded = choice.baseUrl;
      if (unauthorized && !choice.apiKey) {
        // A server with an API key (this page's, on a first visit): ask for the key rather than report a failure.
        this.status = "This server asks for its API key: enter it and Connect.";
        await this.updateComplete;
        // The approve page keeps its own focus (it asks for the key itself).
        if (this.pairingCode === null) this.querySelector<HTMLInputElement>('input[name="apiKey"]')?.focus();
        return;
      }
      const message = (err as Error).message;
      this.offerTab = /^Cannot reach/.test(message);
      // Unreachable (offline, the page from the service worker's cache, or the server down): the tab still works.
      this.status = this.offerTab
        ? `Not connected: the server at ${choice.baseUrl} is unreachable (offline, or not running)${
          corsHint(choice)
        }. The tab works offline.`
        : `Not connected: ${message}`;
      this.problem = this.status;
    }
  }

  /**
   * Lets go of the connection: the session poll and the feeds stop (the panels go with it), and its
   * requests in flight are aborted.
   */
  async #disconnect(): Promise<void> {
    const previous = this.connection;
    this.#watch(null);
    this.#unlist?.();
    this.#unlist = undefined;
    clearInterval(this.#poll);
    this.connection = undefined;
    this.warnings = [];
    await this.updateComplete;
    await previous?.close();
  }

  /** The person approved a pairing: this tab joins the session. */
  async #paired(session: PairedSession): Promise<void> {
    this.pairingCode = null;
    const base = new URL(".", location.href);
    history.replaceState(null, "", base.pathname);
    await this.#connect({
      mode: "server",
      baseUrl: base.href.replace(/\/+$/, ""),
      apiKey: session.sessionToken,
      paired: session.namespaceId,
    });
    await this.#focusHeading("#session-title");
  }

  /** Moves focus to a heading of the sidebar once drawn: the button the person pressed is gone with its page. */
  async #focusHeading(selector: string): Promise<void> {
    await this.updateComplete;
    this.querySelector<HTMLElement>(selector)?.focus();
  }

  /** The person ends the pairing (the agent's token stops working too); the tab goes back to itself. */
  async #endSession(): Promise<void> {
    const session = this.choice;
    this.status = "Ending the session…";
    // First let go of the session: a request of its still under way when the token ends would be refused.
    await this.#disconnect();
    const problem = await endPairing(session.baseUrl, session.apiKey);
    if (problem) {
      await this.#connect(session);
      this.status = this.problem = `The session could not be ended: ${problem}`;
      return;
    }
    await this.#connect({ mode: "tab", baseUrl: "", apiKey: "" });
    await this.#focusHeading("#connection-title");
  }

  /** A paired tab follows the models the agent creates and deletes; the first new one opens when none is. */
  async #followSession(): Promise<void> {
    const connection = this.connection;
    if (!connection) return;
    let models: string[];
    try {
      models = await connection.invoker.invoke(operations.listModels, {});
    } catch (err) {
      if (connection !== this.connection) return;
      if (err instanceof ServiceError && err.kind === "unauthorized") await this.#lose(err);
      else {
        this.#trouble("poll", `Cannot list the session's models (${(err as Error).message}); retrying…`);
      }
      return;
    }
    if (connection !== this.connection) return;
    this.#trouble("poll", null);
    const arrived = models.filter((id) => !this.models.includes(id));
    if (arrived.length || models.length !== this.models.length) this.models = models;
    if (this.selected && !models.includes(this.selected)) this.#select(arrived[0] ?? "");
    else if (!this.selected && arrived.length && this.draft === null) this.#select(arrived[0], "view");
  }

  /**
   * The session refused this tab's token (`refusal`, a 401): the tab lets go of it, so that its models' views,
   * whose writes would all be refused, go, and the badge, the sidebar and the alert say what happened. The
   * pairing stays in the tab's storage, so that a reload says the same; Leave the session forgets it.
   */
  async #lose(refusal: ServiceError): Promise<void> {
    await this.#disconnect();
    this.models = [];
    this.#select("");
    // A rejoin approved in another tab replaced this tab's token (this one slept, or was offline, too long).
    this.lost = refusal.body?.reason === "session_moved" ? "moved" : "ended";
    this.status = LOST[this.lost].status;
    this.problem = LOST[this.lost].alert;
  }

  /** The person leaves a session this tab no longer reaches: the tab goes back to itself, as after ending one. */
  async #leaveSession(): Promise<void> {
    await this.#connect({ mode: "tab", baseUrl: "", apiKey: "" });
    await this.#focusHeading("#connection-title");
  }

  /**
   * The person goes to a model or the start page from the sidebar: from the approve page too, which they leave
   * (before, it stayed in place and the button did nothing).
   */
  #go(id: string, panel: PanelId = this.panel): void {
    if (this.pairingCode !== null) {
      this.pairingCode = null;
      history.replaceState(null, "", new URL(".", location.href).pathname);
    }
    this.#select(id, panel);
  }

  #select(id: string, panel: PanelId = this.panel): void {
    if (id) this.notice = this.#linked = "";
    this.selected = id;
    this.panel = panel;
    this.draft = null;
    const hash = id ? `#model=${encodeURIComponent(id)}&panel=${panel}` : "";
    history.replaceState(null, "", `${location.pathname}${location.search}${hash}`);
    this.#watch(id || null);
  }

  /** Follows the selected model's changes: every panel reloads after any of them. */
  #watch(id: string | null): void {
    this.#unsubscribe?.();
    this.#unsubscribe = id && this.connection
      ? this.connection.feed.subscribe(id, (event) => {
        if (event.kind === "deleted") {
          // Deleted elsewhere (another client, another tab) or here, or no longer loadable here: say so,
          // rather than just leave the page, and keep the connection's status line as it is.
          this.notice = goneMessage(event);
          void this.#refreshModels();
        } else this.#changed();
      })
      : undefined;
  }

  #changed(): void {
    clearTimeout(this.#bump);
    this.#bump = setTimeout(() => this.revision++, 30);
  }

  async #refreshModels(): Promise<void> {
    if (!this.connection) return;
    this.models = await this.connection.invoker.invoke(operations.listModels, {});
    // Only a selected model that went is let go: the start page (and a new spec's draft on it) stays.
    if (this.selected && !this.models.includes(this.selected)) {
      const inPanel = this.querySelector("main")?.contains(document.activeElement);
      this.#select("");
      await this.updateComplete;
      // Focus was in the model's panel (its Delete button, say), now gone: rather than fall back to the top
      // of the document, it moves to the models list, whose notice says what went.
      if (inPanel) this.querySelector<HTMLElement>("#models-title")?.focus();
    }
  }

  async #openExample(spec: ModelSpec): Promise<void> {
    if (!this.connection) return;
    this.problem = "";
    try {
      await this.connection.invoker.invoke(operations.createModel, { spec: spec as never });
    } catch (err) {
      // Already there (created on an earlier visit): open it as it is.
      if (!(err instanceof ServiceError && err.kind === "conflict")) {
        this.problem = (err as Error).message;
        return;
      }
    }
    await this.#refreshModels();
    this.#open(spec.id);
  }

  /**
   * Shows a model the person just opened or created (its view) and moves focus to its heading: the button
   * they pressed is gone with the page it was on, and focus would fall back to the top of the document.
   */
  async #open(id: string): Promise<void> {
    this.#select(id, "view");
    await this.updateComplete;
    (this.querySelector(".model-title") as HTMLElement | null)?.focus();
  }

  protected override render(): TemplateResult {
    return html`
      <header class="top">
        <h1>Reactive model playground</h1>
        <div class="badges">
          ${this.lost
            ? html`<span class="paired-badge lost" role="status">${LOST[this.lost].badge}</span>`
            : this.connection && this.choice.paired
            ? html`<span class="paired-badge" role="status" title=${`Session ${this.choice.paired}`}>Paired</span>`
            : nothing}
          <span class="mode ${this.connection?.mode ?? "none"}">${this.connection
            ? (this.connection.mode === "tab"
              ? "In this tab · offline-ready"
              : `Server · ${this.connection.label}`)
            : "Not connected"}</span>
        </div>
      </header>
      <div class="layout">
        <aside class="sidebar" aria-label="Connection and models">
          ${this.lost
            ? html`
              <section class="connection" aria-labelledby="session-title">
                <h2 id="session-title" tabindex="-1">${LOST[this.lost].heading}</h2>
                <p class="status" role="status">${this.status}</p>
                <button type="button" @click=${() => this.#leaveSession()}>Leave the session</button>
              </section>
            `
            : this.choice.paired
            ? html`
              <section class="connection" aria-labelledby="session-title">
                <h2 id="session-title" tabindex="-1">Paired with an agent</h2>
                <p class="muted">This tab shows the models of the agent's session and edits them; the agent
                              sees your changes. New models appear here as the agent creates them. Ending
                              the session takes the agent's access away too.</p>
                <p class="status" role="status">${this.status}</p>
                <button type="button" @click=${() => this.#endSession()}>End the session</button>
              </section>
            `
            : html`
              <svc-connection-form .choice=${this.choice} status=${this.status} .keyNeeded=${this.keyNeeded}
                .inTab=${this.connection?.mode === "tab"}
                @svc-connect=${(e: CustomEvent<ConnectionChoice>) =>
                  this.#connect(e.detail)}></svc-connection-form>
            `}
          ${this.lost
            // The session's models are out of this tab's reach: no list of them, nor a start page to open.
            ? nothing
            : html`
              <nav aria-labelledby="models-title">
                      <h2 id="models-title" tabindex="-1">Models</h2>
                      <p class="notice" role="status">${this.notice}</p>
                      ${this.models.length
                        ? html`<ul class="models">${
                          this.models.map((id) =>
                            html`<li><button type="button" class="model-link" aria-current=${
                              id === this.selected ? "page" : nothing
                            }
              @click=${() => this.#go(id, "view")}>${id}</button></li>`
                          )
                        }</ul>`
                        : html`<p class="muted">No models yet. Open an example or create one.</p>`}
                      <button type="button" @click=${() => this.#go("")}>Examples and new model</button>
                    </nav>
            `}
        </aside>
        <main class="main" @svc-open-example=${(e: CustomEvent<ModelSpec>) => this.#openExample(e.detail)}
          @svc-edit-spec=${(e: CustomEvent<string>) => (this.draft = e.detail)}
          @svc-created=${async (
            e: CustomEvent<string>,
          ) => (await this.#refreshModels(), this.#open(e.detail))}
          @svc-deleted=${() => this.#refreshModels()}
          @svc-changed=${() => this.#changed()} @svc-commit=${() => this.#changed()}
          @svc-paired=${(e: CustomEvent<PairedSession>) => void this.#paired(e.detail)}>
                ${this.problem
                  ? html`<p class="problem" role="alert">${this.problem}${
                    this.offerTab
                      ? html`
                        <button type="button" @click=${() =>
                          this.#connect({
                            mode: "tab",
                            baseUrl: "",
                            apiKey: "",
                            chosen: true,
                          })}>Use this tab instead</button>
                      `
                      : nothing
                  }</p>`
                  : nothing}
                <svc-storage-notice .connection=${this.connection} .warnings=${this
                  .warnings}></svc-storage-notice>
                ${this.#main()}
              </main>
      </div>
    `;
  }

  #main(): TemplateResult {
    if (this.pairingCode !== null) {
      return html`
        <svc-pairing code=${this.pairingCode} .baseUrl=${new URL(".", location.href).href}
          .apiKey=${this.choice.mode === "server" && !this.choice.paired
            ? this.choice.apiKey
            : ""}></svc-pairing>
      `;
    }
    const connection = this.connection;
    // Not connected: the status says why, beside the form; an alert above already tells a problem.
    if (!connection) return this.problem ? html`` : html`<p class="muted">${this.status}</p>`;
    if (this.draft !== null && this.draft !== "") {
      return html`<svc-new-model .connection=${connection} .text=${this.draft}></svc-new-model>`;
    }
    if (!this.selected) {
      return html`
        <svc-generate-panel .connection=${connection}></svc-generate-panel>
        <svc-gallery></svc-gallery>
      `;
    }
    const common = { connection, modelId: this.selected, revision: this.revision };
    const panel = (() => {
      switch (this.panel) {
        case "view":
          return html`
            <div class="view-and-state">
              <svc-view .invoker=${connection.invoker} .feed=${connection.feed} model=${this
                .selected}></svc-view>
              <svc-state-panel .connection=${common.connection} .modelId=${common.modelId} revision=${common
                .revision}></svc-state-panel>
            </div>
          `;
        case "mutate":
          return html`<svc-mutate-panel .connection=${connection} .modelId=${this.selected} revision=${this.revision}></svc-mutate-panel>`;
        case "explain":
          return html`<svc-explain-panel .connection=${connection} .modelId=${this.selected} revision=${this.revision}></svc-explain-panel>`;
        case "graph":
          return html`<svc-graph-panel .connection=${connection} .modelId=${this.selected} revision=${this.revision}></svc-graph-panel>`;
        case "tests":
          return html`<svc-tests-panel .connection=${connection} .modelId=${this.selected} revision=${this.revision}></svc-tests-panel>`;
        case "audit":
          return html`<svc-audit-panel .connection=${connection} .modelId=${this.selected} revision=${this.revision}></svc-audit-panel>`;
        case "evolve":
          return html`<svc-evolve-panel .connection=${connection} .modelId=${this.selected} revision=${this.revision}></svc-evolve-panel>`;
        case "files":
          return html`<svc-snapshot-panel .connection=${connection} .modelId=${this.selected} revision=${this.revision}></svc-snapshot-panel>`;
      }
    })();
    const index = PANELS.findIndex(([id]) => id === this.panel);
    const onKey = (e: KeyboardEvent) => {
      const delta = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
      if (!delta) return;
      const next = PANELS[(index + delta + PANELS.length) % PANELS.length][0];
      this.#select(this.selected, next);
      void this.updateComplete.then(() =>
        (this.querySelector(`#tab-${next}`) as HTMLElement | null)?.focus()
      );
    };
    return html`
      <h2 class="model-title" tabindex="-1">${this.selected}</h2>
      <div role="tablist" aria-label="Panels" class="panel-tabs" @keydown=${onKey}>${PANELS.map((
        [id, label],
      ) =>
        html`
          <button type="button" role="tab" id=${`tab-${id}`} aria-selected=${id === this.panel
            ? "true"
            : "false"}
            aria-controls="panel" tabindex=${id === this.panel ? 0 : -1} @click=${() =>
              this.#select(this.selected, id)}>${label}</button>
        `
      )}</div>
      <div role="tabpanel" id="panel" aria-labelledby=${`tab-${this.panel}`} class="panel">${panel}</div>
    `;
  }
}
customElements.define("svc-playground", Playground);
