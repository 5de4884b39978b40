/**
 * One Deno KV database shared by the KV stores, with group commit: writes are
 * queued as units (mutations that must land atomically) and every atomic
 * operation carries as many queued units as Deno KV's limits allow, so
 * concurrent commits of many models cost one database transaction.
 *
 * @module
 */

import type { MessageChannel } from "node:worker_threads";
import { DiskFull } from "./disk_full.ts";
import type { DirectoryLock } from "./dir_lock.ts";
import { utf8Length } from "../utf8_length.ts";

/** A set (`value` present) or a delete (`value` absent) of one key. */
export interface KvMutation {
  key: Deno.KvKey;
  value?: unknown;
}

/**
 * Deno KV's limits per atomic operation (denokv_proto limits.rs), with headroom
 * for our size estimates: 1,000 mutations, 800 KiB of keys and values, 80 KiB of keys.
 */
export const UNIT_LIMITS = Object.freeze({
  mutations: 1000,
  bytes: 800 * 1024 - 16 * 1024,
  keyBytes: 80 * 1024 - 4 * 1024,
});

/**
 * Atomic operations committing at once: one of commits, and one of other work
 * beside it (a compaction's header or background work, so neither holds the
 * commits back). Deno KV
 * applies them one after the other, each waiting for its own fsync (about
 * 4 ms on this project's disks), so what the database takes a second is
 * bounded by how many units an operation of commits carries. When a second
 * operation of commits was allowed in flight, the first write to arrive after
 * one started took that slot alone and the writes behind it waited for both:
 * under the 64-model HTTP load half the operations carried a single unit.
 * Everything that queues while an operation of commits runs now goes in the
 * next, which starts the moment it ends. Each unit is acknowledged only once
 * its own operation is durable, and no key is written by two operations in
 * flight: a model's commits wait in its queue for the commit before them, its
 * compactions run one at a time and write no key a commit writes (header,
 * base state, folded audit records), and background work deletes only keys
 * nothing writes again.
 */
const IN_FLIGHT = 2;

/**
 * Mutations per atomic operation of background work (deleting what nothing
 * refers to any more): about a millisecond or two of the database, where the
 * thousand deletions Deno KV would take at once held it for 20 to 70 ms and
 * every commit queued behind them.
 */
export const BACKGROUND_UNIT = 32;

/**
 * Atomic operations of commits, at most, that may start while background work
 * waits: background work goes when no commit waits, and under a load that
 * never lets up, once in this many operations, so it is never starved.
 */
const FOREGROUND_TURNS = 8;

/** Largest byte chunk stored in one value (Deno KV caps a value at 64 KiB, its header included). */
export const CHUNK_BYTES = 60 * 1024;

/** Upper bound of a key's encoded size. */
export function keyBytes(key: Deno.KvKey): number {
  let size = 1;
  for (const part of key) {
    if (typeof part === "string") size += utf8Length(part) + 2;
    else if (part instanceof Uint8Array) size += part.byteLength + 2;
    else size += 10;
  }
  return size;
}

/** Upper bound of a value's serialized size (strings counted as two-byte V8 strings). */
export function valueBytes(value: unknown): number {
  if (value instanceof Uint8Array) return value.byteLength + 16;
  if (typeof value === "string") return value.length * 2 + 16;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + valueBytes(item), 16);
  if (value !== null && typeof value === "object") {
    let size = 16;
    for (const [name, item] of Object.entries(value)) size += name.length * 2 + 8 + valueBytes(item);
    return size;
  }
  return 16;
}

interface Size {
  mutations: number;
  bytes: number;
  keyBytes: number;
}

function sizeOf(mutations: readonly KvMutation[]): Size {
  const size = { mutations: mutations.length, bytes: 0, keyBytes: 0 };
  for (const m of mutations) {
    const key = keyBytes(m.key);
    size.keyBytes += key;
    size.bytes += key + (m.value === undefined ? 0 : valueBytes(m.value));
  }
  return size;
}

function fitsTogether(a: Size, b: Size): boolean {
  return a.mutations + b.mutations <= UNIT_LIMITS.mutations && a.bytes + b.bytes <= UNIT_LIMITS.bytes &&
    a.keyBytes + b.keyBytes <= UNIT_LIMITS.keyBytes;
}

/** The size of two groups of mutations together. */
function plus(a: Size, b: Size): Size {
  return {
    mutations: a.mutations + b.mutations,
    bytes: a.bytes + b.bytes,
    keyBytes: a.keyBytes + b.keyBytes,
  };
}

const EMPTY: Size = Object.freeze({ mutations: 0, bytes: 0, keyBytes: 0 });

/** Whether mutations fit one atomic operation. */
export function fitsOneUnit(mutations: readonly KvMutation[]): boolean {
  return fitsTogether(EMPTY, sizeOf(mutations));
}

interface QueuedUnit {
  mutations: readonly KvMutation[];
  size: Size;
  resolve(): void;
  reject(err: unknown): void;
}

/** A shared, reference-counted Deno KV database with a group-commit writer. */
export class KvDatabase {
  /** The underlying handle (reads go straight to it). */
  readonly kv: Deno.Kv;
  /** The database file. */
  readonly path: string;
  readonly #warn: (message: string) => void;
  /** The data directory's lock, released with the handle. */
  readonly #lock: DirectoryLock | undefined;
  #users = 0;
  /** Whether commits are refused for a full disk (logged once until one succeeds). */
  readonly #disk: DiskFull;
  #queue: QueuedUnit[] = [];
  /** Units committed beside the commits, each in an operation of its own (see {@link writeStaged}). */
  #beside: QueuedUnit[] = [];
  /** Background units (see {@link writeInBackground}), each its own small atomic operation. */
  #background: QueuedUnit[] = [];
  /** Atomic operations of commits started since the last background one. */
  #sinceBackground = 0;
  /** Atomic operations committing now, at most {@link IN_FLIGHT}. */
  #inFlight = 0;
  /** Whether an operation of the queue's commits is among them: at most one is. */
  #committing = false;
  /** Whether an operation of {@link #beside} is among them: at most one is. */
  #besideRunning = false;
  /** Resolves when the queue is empty and nothing is committing. */
  #idle: PromiseWithResolvers<void> | null = null;
  /**
   * A message to itself, delivered in the next turn of the event loop: a
   * commit arriving while none runs starts there, with every other commit
   * queued in this turn (see {@link #enqueue}). node:worker_threads' port,
   * since its `unref` lets the process end while none is pending; imported
   * when a database opens, not at every CLI start (the Node compatibility
   * layer it brings cost the console's cold start 10-20 ms).
   */
  readonly #nextTurn: MessageChannel;
  #turnPending = false;

  private constructor(
    kv: Deno.Kv,
    path: string,
    warn: (message: string) => void,
    nextTurn: MessageChannel,
    lock?: DirectoryLock,
  ) {
    this.kv = kv;
    this.#nextTurn = nextTurn;
    this.path = path;
    this.#warn = warn;
    this.#lock = lock;
    this.#nextTurn.port1.on("message", () => {
      this.#turnPending = false;
      this.#nextTurn.port1.unref();
      this.#drain();
    });
    this.#nextTurn.port1.unref();
    this.#disk = new DiskFull(`kv (${path})`, warn);
  }

  /**
   * Opens (creating when absent) the database file; `warn` reports failed
   * background clean-ups; `lock`, the directory's, is released when the handle closes.
   */
  static async open(
    path: string,
    warn: (message: string) => void,
    lock?: DirectoryLock,
  ): Promise<KvDatabase> {
    const { MessageChannel } = await import("node:worker_threads");
    return new KvDatabase(await Deno.openKv(path), path, warn, new MessageChannel(), lock);
  }

  /** Whether the last commit failed for a full disk (until one succeeds). */
  get full(): boolean {
    return this.#disk.full;
  }

  /** Why commits are refused now (a full disk, storage that cannot be written), or `null`. */
  get trouble(): string | null {
    return this.#disk.trouble;
  }

  /** Registers a user; the database closes when the last one releases it. */
  acquire(): this {
    this.#users++;
    return this;
  }

  /** Releases a user; the last release waits for queued writes and closes the handle. */
  async release(): Promise<void> {
    if (--this.#users > 0) return;
    if (this.#queue.length || this.#beside.length || this.#background.length || this.#inFlight) {
      await (this.#idle ??= Promise.withResolvers()).promise;
    }
    this.kv.close();
    this.#nextTurn.port1.close();
    this.#lock?.release();
  }

  /**
   * Commits mutations atomically (in order), together with whatever other units
   * are queued; resolves once they are durable.
   */
  write(mutations: readonly KvMutation[]): Promise<void> {
    return this.#enqueue(mutations, sizeOf(mutations));
  }

  /**
   * Queues mutations of a known size (see {@link write}). A commit arriving
   * while none runs starts in the next turn of the event loop rather than at
   * once: the writers an operation's end resumed, and the requests that came
   * in the same turn, queue theirs meanwhile and go in the same operation.
   * Started at once, the first went alone and the rest waited behind its
   * fsync: under the 64-model HTTP load a third of the operations carried one
   * unit. The turn costs a few microseconds; an fsync about 4 ms.
   */
  #enqueue(mutations: readonly KvMutation[], size: Size, queue = this.#queue): Promise<void> {
    if (!fitsTogether(EMPTY, size)) {
      return Promise.reject(
        new Error(
          `KV write of ${size.mutations} mutations, ${size.bytes} bytes exceeds one atomic operation`,
        ),
      );
    }
    if (mutations.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      queue.push({ mutations, size, resolve, reject });
      if (queue !== this.#queue || this.#committing) this.#drain();
      else if (!this.#turnPending) {
        this.#turnPending = true;
        // Held open until it arrives, so a lone write never leaves the event loop with nothing to wait for.
        this.#nextTurn.port1.ref();
        this.#nextTurn.port2.postMessage(null);
      }
    });
  }

  /**
   * Commits mutations in order, in small atomic operations that give way to
   * commits (not atomic as a whole): for work no reader waits for, such as
   * deleting folded log entries. Resolves when all are durable.
   */
  writeInBackground(mutations: readonly KvMutation[]): Promise<void> {
    const units = splitUnits(mutations, BACKGROUND_UNIT);
    return Promise.all(units.map((unit) =>
      new Promise<void>((resolve, reject) => {
        this.#background.push({ mutations: unit, size: sizeOf(unit), resolve, reject });
        this.#drain();
      })
    )).then(() => {});
  }

  /** Commits mutations in order, in as many atomic units as the limits need (not atomic as a whole). */
  async writeAll(mutations: readonly KvMutation[]): Promise<void> {
    for (const unit of splitUnits(mutations)) await this.write(unit);
  }

  /**
   * Commits `unit` atomically after `before` (the data it refers to), followed
   * by `after` (deletion of what it made unreachable); all in one atomic
   * operation when they fit. Resolves once `unit` is durable; a failed clean-up
   * only warns, since unreachable keys are swept at the next start. `beside`:
   * in an operation of its own beside the commits' rather than grouped with
   * them, for work that writes no key a commit writes and that a commit should
   * not wait behind (a compaction's header).
   */
  async writeStaged(
    staged: { before?: KvMutation[]; unit: KvMutation[]; after?: KvMutation[] },
    beside = false,
  ): Promise<void> {
    const all = [...staged.before ?? [], ...staged.unit, ...staged.after ?? []];
    // Sized once: a commit's keys are measured for the check and for grouping alike.
    const size = sizeOf(all);
    if (fitsTogether(EMPTY, size)) return this.#enqueue(all, size, beside ? this.#beside : this.#queue);
    await this.writeAll(staged.before ?? []);
    await this.write(staged.unit);
    try {
      await this.writeAll(staged.after ?? []);
    } catch (err) {
      this.#warn(`KV clean-up failed; the leftovers are swept at the next start: ${(err as Error).message}`);
    }
  }

  /**
   * Starts an atomic operation for as many queued units as fit when none of
   * the queue's is running, and one for a unit {@link #beside} them when none
   * of those is, while fewer than {@link IN_FLIGHT} are; each one ending
   * starts the next. A background unit starts alone, when the database is idle
   * or its turn has come (see {@link FOREGROUND_TURNS}).
   */
  #drain(): void {
    while (this.#inFlight < IN_FLIGHT) {
      const waiting = this.#queue.length + this.#beside.length;
      const backgroundTurn = this.#background.length > 0 &&
        (waiting === 0 ? this.#inFlight === 0 : this.#sinceBackground >= FOREGROUND_TURNS);
      let batch: QueuedUnit[];
      let ended: () => void;
      if (backgroundTurn) {
        batch = this.#background.splice(0, 1);
        this.#sinceBackground = 0;
        ended = () => {};
      } else if (this.#beside.length && !this.#besideRunning) {
        batch = this.#beside.splice(0, 1);
        this.#besideRunning = true;
        ended = () => this.#besideRunning = false;
      } else if (this.#queue.length && !this.#committing) {
        batch = this.#queue.splice(0, this.#fittingUnits());
        this.#sinceBackground++;
        this.#committing = true;
        ended = () => this.#committing = false;
      } else return;
      this.#inFlight++;
      this.#commitBatch(batch).finally(() => {
        this.#inFlight--;
        ended();
        this.#drain();
        if (!this.#queue.length && !this.#beside.length && !this.#background.length && !this.#inFlight) {
          this.#idle?.resolve();
        }
      });
    }
  }

  /** How many queued units, from the first, fit one atomic operation together. */
  #fittingUnits(): number {
    let size = this.#queue[0].size;
    let count = 1;
    while (count < this.#queue.length && fitsTogether(size, this.#queue[count].size)) {
      size = plus(size, this.#queue[count].size);
      count++;
    }
    return count;
  }

  /** Commits a batch; when it fails, nothing of it was written, and its units are retried alone. */
  async #commitBatch(batch: QueuedUnit[]): Promise<void> {
    try {
      await this.#commit(batch.flatMap((unit) => unit.mutations));
      for (const unit of batch) unit.resolve();
    } catch (err) {
      if (batch.length === 1) batch[0].reject(err);
      // Nothing of a failed batch was written: retry its units alone so one bad unit fails alone.
      else for (const unit of batch) await this.#commit(unit.mutations).then(unit.resolve, unit.reject);
    }
  }

  async #commit(mutations: readonly KvMutation[]): Promise<void> {
    const op = this.kv.atomic();
    for (const m of mutations) {
      if (m.value === undefined) op.delete(m.key);
      else op.set(m.key, m.value);
    }
    let result: Deno.KvCommitResult | Deno.KvCommitError;
    try {
      result = await op.commit();
    } catch (err) {
      throw this.#disk.refusal(err);
    }
    if (!result.ok) throw new Error("KV atomic commit was refused");
    this.#disk.succeeded();
  }
}

/** Splits mutations, in order, into units that each fit one atomic operation (of at most `most` mutations). */
export function splitUnits(
  mutations: readonly KvMutation[],
  most: number = UNIT_LIMITS.mutations,
): KvMutation[][] {
  const units: KvMutation[][] = [];
  let current: KvMutation[] = [];
  let size = EMPTY;
  for (const m of mutations) {
    const one = sizeOf([m]);
    if (current.length && (current.length >= most || !fitsTogether(size, one))) {
      units.push(current);
      current = [];
      size = EMPTY;
    }
    current.push(m);
    size = plus(size, one);
  }
  if (current.length) units.push(current);
  return units;
}
