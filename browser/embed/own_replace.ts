/**
 * A model an app replaces through a service of `createModelService()` over the page's database (deleted,
 * created again, given its state) is replaced in this tab: the page's elements keep showing it as it was,
 * never "was deleted" nor "being updated in another tab", then show it as it came out.
 *
 * @module
 */
import type { ModelService } from "../../engine/mod.ts";
import type { HoldingFeed } from "./held_feed.ts";
import type { Settled } from "./settled.ts";

/** What {@link followOwn} uses of the page-wide connection. */
export interface OwnPage {
  feed: HoldingFeed;
  service?: ModelService;
  /** What came of a deletion of model `id` this page's service heard (settled.ts). */
  settled(id: string): Promise<Settled>;
}

/**
 * How long after an own deletion of a model a creation (or restore) of it by this tab's own services still
 * makes the two one replacement; one begun later is a creation, the deletion told before it.
 */
export const OWN_PAIR_MS = 1000;

/** Options of {@link followOwn}. */
export interface FollowOptions {
  /** {@link OWN_PAIR_MS} by default. */
  pairMs?: number;
  /** Runs `run` after `ms` (setTimeout by default; a test's clock); returns its cancel function. */
  timer?: (run: () => void, ms: number) => () => void;
}

/** The creations, restores and deletions of this tab's own services under way, by model id. */
const under = new Map<string, Set<Promise<unknown>>>();
/** Who waits for the next of those calls of a model to begin, by model id. */
const waiting = new Map<string, Set<() => void>>();

/**
 * Resolves once a creation, restore or deletion of model `id` by this tab's own services begins; with the
 * function that stops waiting.
 */
function nextOwnCall(id: string): [Promise<void>, () => void] {
  let begun = () => {};
  const next = new Promise<void>((resolve) => begun = resolve);
  const of = waiting.get(id) ?? new Set();
  waiting.set(id, of.add(begun));
  return [next, () => void (of.delete(begun) && !of.size && waiting.get(id) === of && waiting.delete(id))];
}

/** Resolves once no creation, restore or deletion of model `id` by this tab's own services is under way. */
async function ownCallsDone(id: string): Promise<void> {
  for (let calls; (calls = under.get(id))?.size;) await Promise.allSettled(calls);
}

/** `call`, each of its calls under way kept in {@link under} by the model id `idOf` reads from its arguments. */
function tracked<A extends unknown[], R>(
  call: (...args: A) => Promise<R>,
  idOf: (...args: A) => unknown,
): (...args: A) => Promise<R> {
  return (...args) => {
    const done = call(...args);
    const id = idOf(...args);
    if (typeof id !== "string") return done;
    const calls = under.get(id) ?? new Set();
    under.set(id, calls.add(done));
    waiting.get(id)?.forEach((begun) => begun());
    waiting.delete(id);
    const forget = () => void (calls.delete(done) && !calls.size && under.delete(id));
    done.then(forget, forget);
    return done;
  };
}

/**
 * Makes `service`'s deletions of a model the page-wide service shows this tab's own: the page's feed (`page()`,
 * once open) holds the model, its calls waiting, until the deletion and this tab's services' creations and restores
 * of the model begun meanwhile are over (an app's replacement), then tells what came of it. Only a call begun
 * within `pairMs` of the deletion's end is waited for: without one, the hold ends then (told as a deletion, or as
 * what the page's service holds), and a creation after that is one.
 */
export function followOwn(
  service: ModelService,
  page: () => Promise<OwnPage> | undefined,
  { pairMs = OWN_PAIR_MS, timer = defaultTimer }: FollowOptions = {},
): void {
  service.createModel = tracked(service.createModel.bind(service), (spec) => (spec as { id?: unknown })?.id);
  service.restore = tracked(service.restore.bind(service), (id) => id);
  const remove = tracked(service.deleteModel.bind(service), (...[id]) => id);
  service.deleteModel = async (id, keep) => {
    // A page-wide service that failed to open shows nothing.
    const shown = await page()?.catch(() => undefined);
    if (!shown?.service || !(await shown.service.listModels()).includes(id)) return await remove(id, keep);
    const release = shown.feed.hold(id);
    shown.feed.stall(id);
    // The page's service hears of it from the store (deleted, or already created again): what it tells is
    // held, not taken for another tab's deletion.
    let stop = () => {};
    const heard = new Promise<void>((resolve) =>
      stop = shown.service!.subscribe((event) => event.modelId === id && resolve())
    );
    const over = async (paired: Promise<unknown>) => {
      try {
        await paired;
        await ownCallsDone(id);
        release(await shown.settled(id));
      } catch {
        release(null);
      } finally {
        stop();
      }
    };
    const removed = remove(id, keep);
    // Begun after this deletion's own call, even before it ends.
    const [begun, forget] = nextOwnCall(id);
    try {
      await removed;
    } catch (err) {
      forget();
      void over(Promise.resolve());
      throw err;
    }
    // Within the window or not at all: a creation pairing with the deletion, and the page's service hearing of
    // it (one that never does holds the model no longer either).
    let cancel = () => {};
    const window = new Promise<void>((resolve) => cancel = timer(resolve, pairMs));
    const within = (what: Promise<void>) => Promise.race([what, window]);
    void over(Promise.all([within(heard), within(begun)]).finally(() => (cancel(), forget())));
  };
}

/** {@link FollowOptions.timer} on the platform's clock. */
function defaultTimer(run: () => void, ms: number): () => void {
  const timeout = setTimeout(run, ms);
  return () => clearTimeout(timeout);
}
