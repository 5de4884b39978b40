/**
 * Trace records of evaluations and the bounded per-model ring that keeps them.
 *
 * @module
 */
import type { Json } from "../json/value.ts";
import { parsePath, patternMatches } from "../json/path.ts";

/** One evaluation: a derivation, meta value, constraint or effect trigger. */
export interface TraceRecord {
  targetPath: string;
  expression: string;
  inputPaths: string[];
  result: Json;
  constraintPassed: boolean | null;
  errorMessage: string | null;
}

/** A fixed-size ring of the most recent trace records. */
export class TraceRing {
  readonly #capacity: number;
  #items: TraceRecord[] = [];

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** Appends records, dropping the oldest beyond capacity. */
  push(records: readonly TraceRecord[]): void {
    if (records.length >= this.#capacity) {
      this.#items = records.slice(records.length - this.#capacity);
      return;
    }
    this.#items.push(...records);
    if (this.#items.length > this.#capacity) this.#items.splice(0, this.#items.length - this.#capacity);
  }

  /** Drops every record. */
  clear(): void {
    this.#items = [];
  }

  /** An independent ring holding the same records. */
  clone(): TraceRing {
    const copy = new TraceRing(this.#capacity);
    copy.#items = [...this.#items];
    return copy;
  }

  /**
   * Records whose target is `address` (or, for a pattern such as
   * `$.items[*].lineTotal`, any element), oldest first; `limit` keeps the newest N.
   */
  find(address: string, limit?: number): TraceRecord[] {
    const parsed = address.startsWith("$") && !address.startsWith("$constraint:") &&
        !address.startsWith("$effect:")
      ? parsePath(address.split("#")[0])
      : null;
    const suffix = address.includes("#") ? "#" + address.split("#")[1] : "";
    const matches = this.#items.filter((r) => {
      if (r.targetPath === address) return true;
      if (!parsed?.ok) return false;
      const [path, property] = r.targetPath.split("#");
      if ((property ? "#" + property : "") !== suffix) return false;
      const target = parsePath(path);
      return target.ok && patternMatches(parsed.path, target.path);
    });
    return limit !== undefined && limit >= 0 ? matches.slice(Math.max(0, matches.length - limit)) : matches;
  }
}
