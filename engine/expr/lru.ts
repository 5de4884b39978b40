/**
 * A bounded least-recently-used map.
 *
 * @module
 */

/** A map that evicts its least recently used entry beyond `capacity`. */
export class LruCache<K, V> {
  readonly #capacity: number;
  readonly #entries = new Map<K, V>();
  /**
   * The key last set or read, the newest entry of the map's order: reading it
   * again needs no move (the hot caches read one key many times running).
   */
  #newest: K | undefined = undefined;

  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity);
  }

  /** The value under `key`, marking it most recently used. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined && key !== this.#newest) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
      this.#newest = key;
    }
    return value;
  }

  /** Stores a value, evicting the oldest entry when full. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    this.#newest = key;
    if (this.#entries.size > this.#capacity) {
      this.#entries.delete(this.#entries.keys().next().value as K);
    }
  }

  /** Number of entries held. */
  get size(): number {
    return this.#entries.size;
  }
}
