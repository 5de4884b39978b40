/// <reference lib="dom" />
/**
 * The examples gallery (the bundled example specs) and the entry to a new
 * model: `svc-open-example` asks the app to create (or reopen) an example,
 * `svc-edit-spec` to open a spec in the new-model editor.
 *
 * @module
 */
import { html, LitElement, type TemplateResult } from "lit";
import { EXAMPLES } from "../../engine/authoring/examples/mod.ts";
import { BLANK_SPEC } from "./blank_spec.ts";
import { readFile } from "./model_panel.ts";

/** The first sentence of a description, cut at about 150 characters. */
export function summary(description: string): string {
  const first = description.split(/(?<=\.)\s/)[0];
  return first.length <= 150 ? first : `${first.slice(0, 147).replace(/\s+\S*$/, "")}…`;
}

/** `<svc-gallery>`. */
export class Gallery extends LitElement {
  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  #emit(type: string, detail: unknown): void {
    this.dispatchEvent(new CustomEvent(type, { bubbles: true, detail }));
  }

  protected override render(): TemplateResult {
    return html`
      <section class="gallery" aria-labelledby="gallery-title">
        <h2 id="gallery-title">Start from an example</h2>
        <ul class="cards">${EXAMPLES.map((e) =>
          html`
            <li class="example-card">
              <h3>${e.title}</h3>
              <p>${summary(e.description)}</p>
              <div class="actions">
                <button type="button" class="primary" aria-label=${`Open ${e.title}`}
                  @click=${() => this.#emit("svc-open-example", e.spec)}>Open</button>
                <button type="button" aria-label=${`Edit first: ${e.title}`}
                  @click=${() =>
                    this.#emit("svc-edit-spec", JSON.stringify(e.spec, null, 2))}>Edit first</button>
              </div>
            </li>
          `
        )}</ul>
        <div class="actions">
          <button type="button" @click=${() =>
            this.#emit("svc-edit-spec", JSON.stringify(BLANK_SPEC, null, 2))}>New model</button>
          <label class="file-button">Import a spec file
                <input type="file" accept="application/json,.json" @change=${async (e: Event) => {
                  const text = await readFile(e.target as HTMLInputElement);
                  if (text !== null) this.#emit("svc-edit-spec", text);
                }}></label>
        </div>
      </section>
    `;
  }
}
customElements.define("svc-gallery", Gallery);
