/// <reference lib="dom" />
/**
 * `<svc-json-editor>`: a CodeMirror 6 JSON editor (highlighting, bracket
 * matching, undo) whose findings are drawn inline as you type. `lint` is
 * called with the text (debounced) and returns findings with a `location`;
 * they are placed on their JSON value ({@link locate}). An `svc-input` event with
 * `detail: text` follows every edit.
 *
 * @module
 */
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { json, jsonParseLinter } from "@codemirror/lang-json";
import { bracketMatching, defaultHighlightStyle, syntaxHighlighting, syntaxTree } from "@codemirror/language";
import { type Diagnostic, linter, lintGutter } from "@codemirror/lint";
import { EditorState } from "@codemirror/state";
import { EditorView, keymap, lineNumbers } from "@codemirror/view";
import { LitElement } from "lit";
import { locate } from "./spec_locations.ts";

/** A finding to draw: where (a location path) and what. */
export interface EditorFinding {
  location: string;
  message: string;
  severity: "error" | "warning";
}

/** The editor element. */
export class JsonEditor extends LitElement {
  static override properties = { label: {} };
  /** The accessible name of the editing area. */
  label = "JSON";
  /** Findings of the current text (called after parsing succeeded). */
  lint?: (text: string) => Promise<EditorFinding[]>;
  #view?: EditorView;
  #pending = "";

  protected override createRenderRoot(): HTMLElement {
    return this;
  }

  /** The current text. */
  get value(): string {
    return this.#view?.state.doc.toString() ?? this.#pending;
  }

  /** Replaces the text. */
  set value(text: string) {
    if (!this.#view) {
      this.#pending = text;
      return;
    }
    this.#view.dispatch({ changes: { from: 0, to: this.#view.state.doc.length, insert: text } });
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.#view) return;
    const parse = jsonParseLinter();
    this.#view = new EditorView({
      parent: this,
      state: EditorState.create({
        doc: this.#pending,
        extensions: [
          lineNumbers(),
          history(),
          bracketMatching(),
          syntaxHighlighting(defaultHighlightStyle),
          json(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          EditorView.lineWrapping,
          // The editable content is in the tab order already (contenteditable); saying so with tabindex lets
          // checkers such as axe see that the scrolling box around it is reached by keyboard.
          EditorView.contentAttributes.of({ "aria-label": this.label, tabindex: "0" }),
          lintGutter(),
          linter(async (view): Promise<Diagnostic[]> => {
            const syntax = parse(view);
            if (syntax.length || !this.lint) return syntax;
            const text = view.state.doc.toString();
            const tree = syntaxTree(view.state);
            return (await this.lint(text)).map((f) => ({
              ...locate(tree, text, f.location),
              severity: f.severity,
              message: `${f.location}: ${f.message}`,
            }));
          }, { delay: 300 }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) {
              this.dispatchEvent(
                new CustomEvent("svc-input", { detail: update.state.doc.toString(), bubbles: true }),
              );
            }
          }),
        ],
      }),
    });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#pending = this.value;
    this.#view?.destroy();
    this.#view = undefined;
  }
}

if (!customElements.get("svc-json-editor")) customElements.define("svc-json-editor", JsonEditor);
