/**
 * What came of a deletion of a model that this page heard but did not make: another tab's replacement
 * (journaled, under its open's lock) brings the model back; anything else leaves it gone. Decided on
 * what the store holds and on this tab's service taking the model in, not on a timer.
 *
 * @module
 */
import type { Feed } from "../host/feed.ts";

/** A model the store holds again that this tab's service cannot load (another tab's newer spec, say). */
export const NOT_LOADED = { unloaded: true } as const;

/** What came of a deletion: the model's version, {@link NOT_LOADED}, or `null` (gone). */
export type Settled = string | null | typeof NOT_LOADED;

/** What {@link settledVersion} reads. */
export interface SettleSources {
  /** Whether a replacement of the model is journaled (under way in some tab). */
  replacing(id: string): Promise<boolean>;
  /** Resolves once no open of the model runs in any tab (its lock is free). */
  opensDone(id: string): Promise<void>;
  /** The model's version as this tab's service has it, `null` when it has none. */
  version(id: string): Promise<string | null>;
  /** Whether the store holds the model, taken in by this tab's service or not (absent: not known). */
  stored?(id: string): Promise<boolean>;
  /** This tab's feed, which tells of the model taken in again. */
  feed: Feed;
  /** Listens to this tab's warnings (a stored model it cannot load); returns the unsubscribe function. */
  warnings(listener: (message: string) => void): () => void;
}

/** The version of model `id` once what deleted it is over (`null`: gone; {@link NOT_LOADED}: stored, not loadable). */
export async function settledVersion(from: SettleSources, id: string): Promise<Settled> {
  // This tab's service takes a model stored again in at its next notice or poll of the store: its feed
  // then tells, or the service warns that it cannot load it.
  let stops: (() => void)[] = [];
  let unloadable = false;
  const back = new Promise((resolve) =>
    stops = [
      from.feed.subscribe(id, (event) => event.kind !== "deleted" && resolve(0)),
      from.warnings((message) =>
        message.startsWith(`model '${id}' not loaded`) && resolve(unloadable = true)
      ),
    ]
  );
  try {
    // Another tab replacing it has created it again by the time its open's lock frees.
    if (await from.replacing(id)) await from.opensDone(id);
    // In the store (that replacement over, even before this tab heard of the deletion): back here soon.
    if (await from.version(id) === null && await from.stored?.(id)) await back;
    const version = await from.version(id);
    return version === null && unloadable ? NOT_LOADED : version;
  } finally {
    stops.forEach((stop) => stop());
  }
}
