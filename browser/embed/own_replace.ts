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

/** The creations, restores and deletions of this tab's own services under way, by model id. */
const under = new Map<string, Set<Promise<unknown>>>();

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
    const forget = () => void (calls.delete(done) && !calls.size && under.delete(id));
    done.then(forget, forget);
    return done;
  };
}

/**
 * Makes `service`'s deletions of a model the page-wide service shows this tab's own: the page's feed (`page()`,
 * once open) holds the model, its calls waiting, until the deletion and this tab's services' creations and restores
 * of the model begun meanwhile are over (an app's replacement), then tells what came of it.
 */
export function followOwn(service: ModelService, page: () => Promise<OwnPage> | undefined): void {
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
    const over = (deleted: Promise<unknown>) =>
      deleted.then(() => ownCallsDone(id)).then(() => shown.settled(id)).then(release, () => release(null))
        .finally(stop);
    try {
      await remove(id, keep);
    } catch (err) {
      void over(Promise.resolve());
      throw err;
    }
    void over(heard);
  };
}
