/**
 * Trace records of evaluations and the bounded per-model ring that keeps them.
 *
 * @module
 */
import type { Json } from "../json/value.ts";
import { jsonBytes } from "../json/measure.ts";
import { pathOrNull, patternMatches } from "../json/path.ts";
import { quoted } from "../quoted.ts";
import { metaHashAt } from "../model/types.ts";

/** The start of a constraint's trace target, `$constraint:<id>`. */
export const CONSTRAINT_TRACE = "$constraint:";

/**
 * Most characters of a trace's expression, input path (as of an id) or result
 * (a string, or an object's or array's JSON): a longer one is cut to its start
 * and its length (engine/quoted.ts).
 */
export const MAX_TRACED_CHARS = 1024;

/**
 * `value` as a trace records it: a string over {@link MAX_TRACED_CHARS} cut,
 * an object or array whose JSON is longer that JSON cut (a string). A trace
 * lands in every write's result, audit record and the ring, and a constraint's
 * or trigger's answer is bounded by no state limit. Scalars cost a type test;
 * a container is measured only up to the limit (UTF-8 bytes, never fewer than
 * characters) and serialised only past it.
 */
export function tracedResult(value: Json): Json {
  if (typeof value === "string") return quoted(value, MAX_TRACED_CHARS);
  if (value === null || typeof value !== "object" || jsonBytes(value, MAX_TRACED_CHARS) <= MAX_TRACED_CHARS) {
    return value;
  }
  const json = JSON.stringify(value);
  return json.length > MAX_TRACED_CHARS ? quoted(json, MAX_TRACED_CHARS) : value;
}

/** One evaluation: a derivation, meta value, constraint or effect trigger. */
export interface TraceRecord {
  targetPath: string;
  expression: string;
  inputPaths: string[];
  result: Json;
  constraintPassed: boolean | null;
  errorMessage: string | null;
}

/**
 * The traces of a whole-document derivation (creation, evolution, restore) that
 * `explain` keeps: those with a value, an error or a check. An expression over
 * fields not written yet computes nothing (its field stays absent), and a
 * `result: null` before any write reads as a failure; a write's evaluations are
 * all kept, since a value going away there is what the write did.
 */
export function computedTraces(traces: readonly TraceRecord[]): TraceRecord[] {
  return traces.filter((t) => t.result !== null || t.errorMessage !== null || t.constraintPassed !== null);
}

/**
 * A fixed-size ring of the most recent trace records. Every write appends a
 * few, so appending costs what it appends: a slot array with a moving start,
 * never a shift of the whole buffer.
 */
export class TraceRing {
  readonly #capacity: number;
  #slots: TraceRecord[] = [];
  /** Index of the oldest record once the slots are full. */
  #start = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** Appends records, dropping the oldest beyond capacity. */
  push(records: readonly TraceRecord[]): void {
    if (records.length >= this.#capacity) {
      this.#slots = records.slice(records.length - this.#capacity);
      this.#start = 0;
      return;
    }
    for (const record of records) {
      if (this.#slots.length < this.#capacity) this.#slots.push(record);
      else {
        this.#slots[this.#start] = record;
        this.#start = (this.#start + 1) % this.#capacity;
      }
    }
  }

  /** The records, oldest first. */
  get #items(): TraceRecord[] {
    return this.#start === 0
      ? this.#slots
      : [...this.#slots.slice(this.#start), ...this.#slots.slice(0, this.#start)];
  }

  /** Drops every record. */
  clear(): void {
    this.#slots = [];
    this.#start = 0;
  }

  /** An independent ring holding the same records. */
  clone(): TraceRing {
    const copy = new TraceRing(this.#capacity);
    copy.#slots = [...this.#items];
    return copy;
  }

  /**
   * Records whose target is `address` (or, for a pattern such as
   * `$.items[*].lineTotal`, any element), oldest first; `limit` keeps the newest N.
   */
  find(address: string, limit?: number): TraceRecord[] {
    const [field, suffix] = splitMetaKey(address);
    const parsed = address.startsWith("$") && !address.startsWith(CONSTRAINT_TRACE) &&
        !address.startsWith("$effect:")
      ? pathOrNull(field)
      : null;
    const matches = this.#items.filter((r) => {
      if (r.targetPath === address) return true;
      if (!parsed) return false;
      const [path, property] = splitMetaKey(r.targetPath);
      if (property !== suffix) return false;
      const target = pathOrNull(path);
      return target !== null && patternMatches(parsed, target);
    });
    return limit !== undefined && limit >= 0 ? matches.slice(Math.max(0, matches.length - limit)) : matches;
  }
}

/** A field's address and its `#<property>` suffix ('' for the value itself; a quoted name may hold '#'). */
function splitMetaKey(key: string): [string, string] {
  const hash = metaHashAt(key);
  return hash < 0 ? [key, ""] : [key.slice(0, hash), key.slice(hash)];
}
