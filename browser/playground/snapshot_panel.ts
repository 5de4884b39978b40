/// <reference lib="dom" />
/**
 * Snapshots and files: take snapshots and restore them, export the spec and
 * the state (a snapshot) as files and restore state from such a file, and
 * delete the model.
 *
 * @module
 */
import { html, type TemplateResult } from "lit";
import { type Json, operations } from "../../engine/mod.ts";
import { download, fileName, ModelPanel, readFile } from "./model_panel.ts";

interface Taken {
  at: string;
  snapshot: Record<string, unknown>;
}

/** `<svc-snapshot-panel>`. */
export class SnapshotPanel extends ModelPanel {
  static override properties = { ...ModelPanel.properties, taken: { state: true }, note: { state: true } };
  taken: Taken[] = [];
  note = "";

  async #take(): Promise<void> {
    const snapshot = await this.connection!.invoker.invoke(operations.snapshot, { id: this.modelId });
    this.taken = [{
      at: new Date().toLocaleTimeString(),
      snapshot: snapshot as unknown as Record<string, unknown>,
    }, ...this.taken];
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
    if (text !== null) await this.#restore(JSON.parse(text) as Record<string, unknown>);
  }

  async #delete(): Promise<void> {
    if (!confirm(`Delete model '${this.modelId}' with its state and audit trail?`)) return;
    await this.connection!.invoker.invoke(operations.deleteModel, { id: this.modelId });
    this.dispatchEvent(new CustomEvent("svc-deleted", { bubbles: true, detail: this.modelId }));
  }

  protected override render(): TemplateResult {
    return html`
      <h2>Snapshots and files</h2>
            <div class="actions">
        <button type="button" @click=${() => this.run(() => this.#take())}>Take a snapshot</button>
        <button type="button" @click=${() => this.run(() => this.#exportSpec())}>Export the spec</button>
        <button type="button" @click=${() => this.run(() => this.#exportState())}>Export the state</button>
        <label class="file-button">Restore state from a file
                <input type="file" accept="application/json,.json"
                  @change=${(e: Event) =>
                    this.run(() => this.#importState(e.target as HTMLInputElement))}></label>
        <button type="button" class="danger" @click=${() =>
          this.run(() => this.#delete())}>Delete the model</button>
      </div>
            ${this.problemLine()}
            <p role="status" class="muted">${this.note}</p>
            ${this.taken.length
              ? html`<ul class="snapshots">${
                this.taken.map((t, i) =>
                  html`<li>Snapshot ${this.taken.length - i} taken at ${t.at}
              <button type="button" @click=${() => this.run(() => this.#restore(t.snapshot))}>Restore</button>
              <button type="button" @click=${() =>
                    download(
                      fileName(this.modelId, `snapshot-${this.taken.length - i}`),
                      JSON.stringify(t.snapshot as Json, null, 2),
                    )}>Download</button></li>`
                )
              }</ul>`
              : html`<p class="muted">No snapshots taken in this session.</p>`}
    `;
  }
}
customElements.define("svc-snapshot-panel", SnapshotPanel);
