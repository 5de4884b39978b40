/// <reference lib="dom" />
/**
 * A panel's streamed generation run, as a Lit reactive controller: the
 * progress lines (readable sentences of the server's progress frames), the
 * abort behind Cancel, and their rendering: the progress log (a live region,
 * so screen readers hear each step) and the Cancel button. Cancel aborts the
 * request; the server cancels the provider call when the stream closes. A
 * panel that leaves the page cancels its run the same way, since nothing would
 * show its result.
 *
 * While a run goes on, keyboard focus moves to Cancel; when it ends, focus goes
 * back to the button that started it.
 *
 * @module
 */
import {
  html,
  nothing,
  type ReactiveController,
  type ReactiveControllerHost,
  type TemplateResult,
} from "lit";
import { ServiceError, STATUS_OF_KIND } from "../../engine/mod.ts";
import type { RunOptions } from "../../engine/service/generation.ts";
import { progressLine } from "./progress_lines.ts";

/** The host: a Lit element rendering into its light DOM. */
type Host = ReactiveControllerHost & HTMLElement;

/** One run at a time, with its progress and Cancel. */
export class GenerationRun implements ReactiveController {
  /** The progress of the current (or last) run, oldest first. */
  lines: string[] = [];
  running = false;
  readonly #host: Host;
  #abort?: AbortController;
  #startedFrom?: HTMLElement;
  /** How many lines the log showed at the last update. */
  #shown = 0;

  constructor(host: Host) {
    this.#host = host;
    host.addController(this);
  }

  hostDisconnected(): void {
    this.cancel();
  }

  hostUpdated(): void {
    // Follow the newest line, as a terminal does.
    const list = this.#host.querySelector(".progress-log ol");
    if (list && this.#shown !== this.lines.length) list.scrollTop = list.scrollHeight;
    this.#shown = this.lines.length;
  }

  /**
   * Runs `task` with an abort signal and a progress listener. Resolves with
   * its result, or `undefined` when cancelled; a failure rejects.
   */
  async run<T>(
    task: (options: Required<Pick<RunOptions, "signal" | "progress">>) => Promise<T>,
  ): Promise<T | undefined> {
    const abort = new AbortController();
    this.#abort = abort;
    this.#startedFrom = document.activeElement instanceof HTMLElement ? document.activeElement : undefined;
    this.lines = [];
    this.running = true;
    this.#host.requestUpdate();
    void this.#host.updateComplete.then(() => {
      if (this.running && this.#startedFrom && this.#host.contains(this.#startedFrom)) {
        this.#host.querySelector<HTMLElement>("button.cancel-run")?.focus();
      }
    });
    try {
      return await task({
        signal: abort.signal,
        progress: (event) => {
          if (abort.signal.aborted) return;
          this.lines = [...this.lines, progressLine(event)];
          this.#host.requestUpdate();
        },
      });
    } catch (err) {
      if (abort.signal.aborted) return undefined;
      throw err;
    } finally {
      if (this.#abort === abort) this.#abort = undefined;
      this.running = false;
      this.#host.requestUpdate();
      void this.#host.updateComplete.then(() => {
        const focus = document.activeElement;
        if (!focus || focus === document.body) this.#startedFrom?.focus();
      });
    }
  }

  /** Stops the current run, if any. */
  cancel(): void {
    if (!this.#abort) return;
    this.#abort.abort(new DOMException("Cancelled by the person", "AbortError"));
    this.#abort = undefined;
    this.lines = [...this.lines, "Cancelled: the server stops the LLM call."];
    this.#host.requestUpdate();
  }

  /** The Cancel button, while a run goes on. */
  cancelButton(): TemplateResult | typeof nothing {
    return this.running
      ? html`<button type="button" class="cancel-run" @click=${() => this.cancel()}>Cancel</button>`
      : nothing;
  }

  /**
   * The progress log: a live region, labelled `label`, always present so each
   * new line is announced. The list scrolls when long, so it takes focus (the
   * keyboard can scroll it).
   */
  log(label: string): TemplateResult {
    return html`<div class="progress-log" role="log" aria-live="polite" aria-label=${label}>${
      this.lines.length
        ? html`<ol tabindex="0">${this.lines.map((line) => html`<li>${line}</li>`)}</ol>`
        : nothing
    }</div>`;
  }
}

/** A failed run for people: the message and the HTTP status it amounts to. */
export function failureText(err: unknown): string {
  return err instanceof ServiceError
    ? `${err.message} (HTTP ${STATUS_OF_KIND[err.kind]})`
    : (err as Error)?.message ?? String(err);
}
