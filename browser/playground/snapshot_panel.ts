/// <reference lib="dom" />
/**
 * Snapshots and files: take snapshots and restore them, export the spec and
 * the state (a snapshot) as files and restore state from such a file, and
 * delete the model. Snapshots taken stay listed for the session (per
 * connection and model) when the person moves to another panel and back.
 *
 * @module
 */
import { html, type TemplateResult } from "lit";
import { type Json, operations } from "../../engine/mod.ts";
import type { Connection } from "../host/connection.ts";
import { download, fileName, ModelPanel, readFile } from "./model_panel.ts";

interface Taken {
  at: string;
  snapshot: Record<string, unknown>;
}

/** The snapshots taken in this session, by connection and model: the panel is re-created on every visit. */
const SESSION = new WeakMap<Connection, Map<string, Taken[]>>();

/** `<svc-snapshot-panel>`. */
export class SnapshotPanel extends ModelPanel {
  static override properties = { ...ModelPanel.properties, taken: { state: true }, note: { state: true } };
  taken: Taken[] = [];
  note = "";

  protected override load(): Promise<void> {
    this.taken = SESSION.get(this.connection!)?.get(this.modelId) ?? [];
    return Promise.resolve();
  }

  /** A person's action: the last one's note goes, so that a failure never shows beside an earlier success. */
  #act(action: () => Promise<void>): Promise<void> {
    this.note = "";
    return this.run(action);
  }

  async #take(): Promise<void> {
    const snapshot = await this.connection!.invoker.invoke(operations.snapshot, { id: this.modelId });
    this.taken = [{
      at: new Date().toLocaleTimeString(),
      snapshot: snapshot as unknown as Record<string, unknown>,
    }, ...this.taken];
    const models = SESSION.get(this.connection!) ?? new Map<string, Taken[]>();
    SESSION.set(this.connection!, models.set(this.modelId, this.taken));
    this.note = "Snapshot taken.";
  }

  async #restore(snapshot: Record<string, unknown>): Promise<void> {
    await this.connection!.invoker.invoke(operations.restore, { id: this.modelId, snapshot });
    this.note = "State restored.";
    this.changed();
  }

  async #exportSpec(): Promise<void> {
    const spec = await this.connection!.invoker.invoke(operations.getSpec, { id: this.modelId });
    download(fileName(this.modelId, "spec"), JSON.stringify(spec, null, 2));
  }

  async #exportState(): Promise<void> {
    const snapshot = await this.connection!.invoker.invoke(operations.snapshot, { id: this.modelId });
    download(fileName(this.modelId, "state"), JSON.stringify(snapshot, null, 2));
  }

  async #importState(input: HTMLInputElement): Promise<void> {
    const text = await readFile(input);
    if (text === null) return;
    try {
      await this.#restore(JSON.parse(text) as Record<string, unknown>);
    } catch (err) {
      // Says which action failed: the engine's words alone ("Snapshot baseDoc …") leave the person guessing.
      throw new Error(`Restoring from that file failed: ${(err as Error).message}`);
    }
  }

  async #delete(): Promise<void> {
    if (!confirm(`Delete model '${this.modelId}' with its state and audit trail?`)) return;
    await this.connection!.invoker.invoke(operations.deleteModel, { id: this.modelId });
    SESSION.get(this.connection!)?.delete(this.modelId);
    this.dispatchEvent(new CustomEvent("svc-deleted", { bubbles: true, detail: this.modelId }));
  }

  protected override render(): TemplateResult {
    return html`
      <h2>Snapshots and files</h2>
            <div class="actions">
        <button type="button" @click=${() => this.#act(() => this.#take())}>Take a snapshot</button>
        <button type="button" @click=${() => this.#act(() => this.#exportSpec())}>Export the spec</button>
        <button type="button" @click=${() => this.#act(() => this.#exportState())}>Export the state</button>
        <label class="file-button">Restore state from a file
                <input type="file" accept="application/json,.json"
                  @change=${(e: Event) =>
                    this.#act(() => this.#importState(e.target as HTMLInputElement))}></label>
        <button type="button" class="danger" @click=${() =>
          this.#act(() => this.#delete())}>Delete the model</button>
      </div>
            ${this.problemLine()}
            <p role="status" class="muted">${this.note}</p>
            ${this.taken.length
              ? html`<ul class="snapshots">${
                this.taken.map((t, i) => {
                  const n = this.taken.length - i;
                  // Named by their snapshot: a list of "Restore" buttons tells a screen reader nothing.
                  return html`<li>Snapshot ${n} taken at ${t.at}
              <button type="button" aria-label=${`Restore snapshot ${n}`} @click=${() =>
                    this.#act(() => this.#restore(t.snapshot))}>Restore</button>
              <button type="button" aria-label=${`Download snapshot ${n}`} @click=${() =>
                    download(
                      fileName(this.modelId, `snapshot-${n}`),
                      JSON.stringify(t.snapshot as Json, null, 2),
                    )}>Download</button></li>`;
                })
              }</ul>`
              : html`<p class="muted">No snapshots taken in this session.</p>`}
    `;
  }
}
customElements.define("svc-snapshot-panel", SnapshotPanel);
