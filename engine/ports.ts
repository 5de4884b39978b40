/**
 * The small interfaces through which the pure engine reaches the outside world.
 * Deno, a compiled binary and a browser each pass their own implementations.
 *
 * @module
 */
import { sha256Hex, utf8 } from "./sha256.ts";

/** Wall clock. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

/** SHA-256 over bytes or UTF-8 text, as lowercase hex. */
export interface Hasher {
  sha256Hex(data: string | Uint8Array): Promise<string>;
  /**
   * The same digest at once, where the hasher has it without waiting (native code, or hashing in
   * TypeScript what is small enough); `undefined` where only {@link sha256Hex} can answer. An audit
   * record is sealed through it, so a write waits for no promise of its hash.
   */
  sha256HexNow?(data: string | Uint8Array): string | undefined;
}

/**
 * The longest delay one timer takes (2^31 - 1 ms, about 24.8 days): Deno's
 * and browsers' timers fire at once beyond it, so longer waits are chained.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** Timers: when effects fall due (a timer effect's instant, a retry's backoff). */
export interface Scheduler {
  /** Calls `callback` after `ms`, at most {@link MAX_TIMER_MS}. */
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The host facilities the engine needs. */
export interface Platform {
  clock: Clock;
  hasher: Hasher;
  /** Global timers when absent. */
  scheduler?: Scheduler;
}

/** Timers of the global scope (Deno and browsers). */
export const GLOBAL_SCHEDULER: Scheduler = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as number),
};

/**
 * Inputs up to this many bytes are hashed synchronously in TypeScript, larger
 * ones by Web Crypto: about where its asynchronous hand-off stops costing more
 * than the slower hashing.
 */
const SYNC_HASH_BYTES = 4096;

/** SHA-256 in TypeScript for small inputs (audit records), Web Crypto for large ones (blobs). */
export const WEB_HASHER: Hasher = {
  sha256HexNow(data) {
    const bytes = utf8(data);
    return bytes.byteLength <= SYNC_HASH_BYTES ? sha256Hex(bytes) : undefined;
  },
  async sha256Hex(data) {
    const bytes = utf8(data);
    if (bytes.byteLength <= SYNC_HASH_BYTES) return sha256Hex(bytes);
    const digest = await crypto.subtle.digest("SHA-256", bytes as BufferSource);
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
  },
};

/** A platform built on `Date`, global timers and {@link WEB_HASHER}, available in Deno and browsers. */
export function webPlatform(): Platform {
  return { clock: { now: () => Date.now() }, scheduler: GLOBAL_SCHEDULER, hasher: WEB_HASHER };
}
