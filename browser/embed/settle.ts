/**
 * How an open of the embed settles the model stored under a spec's id: created,
 * kept as it is, evolved into the new spec, or replaced (journaled) where no
 * evolution says the change; a spec that cannot take its place leaves it as it was.
 *
 * @module
 */
import {
  DEFAULT_VERSION,
  type Invoker,
  type Json,
  type ModelSpec,
  operations,
  ServiceError,
  specInvalid,
} from "../../engine/mod.ts";
import { jsonEqual } from "../../engine/json/value.ts";
import { evolutionBetween } from "../../engine/evolve/spec_diff.ts";
import {
  createWithState,
  type Finished,
  finishInterrupted,
  type ReplaceJournal,
  type Settling,
} from "./replace_journal.ts";

/**
 * Why an open failed while the model stored under `id` stays as it was
 * (its spec and data), so it can still be shown and written.
 */
export class StoredModelKept extends Error {
  /** @param id The id of the stored model, kept. */
  constructor(message: string, readonly id: string) {
    super(message);
  }
}

/** The stored spec of model `id`, `null` when there is none. */
export async function storedSpec(invoker: Invoker, id: string): Promise<ModelSpec | null> {
  try {
    return await invoker.invoke(operations.getSpec, { id });
  } catch (err) {
    if (err instanceof ServiceError && err.kind === "not_found") return null;
    throw err;
  }
}

/**
 * Creates the model of `spec`, or keeps, evolves or replaces the one stored under its id, a replacement
 * kept in `journal` until it finished (a replacement left midway is finished first). Run under the open's lock.
 * `replacing` is called before a replacement (that one, or one left midway) reads the stored model.
 */
export async function settle(
  invoker: Settling,
  journal: ReplaceJournal,
  spec: ModelSpec,
  replacing: () => void = () => {},
): Promise<void> {
  const finished = await finishInterrupted(invoker, journal, spec.id, spec, replacing);
  if (typeof finished === "object") {
    const { stored, version, snapshot } = finished;
    const what = `Model '${spec.id}': a replacement of its version ${versionOf(stored)} by ${version} was ` +
      "left midway, and";
    throw notHeld(what, spec.id, stored, snapshot);
  }
  let stored = await storedSpec(invoker, spec.id);
  if (!stored) {
    try {
      await invoker.invoke(operations.createModel, { spec: spec as unknown as Json });
      return;
    } catch (err) {
      // Another tab created it meanwhile (this tab's service has taken it in): go on as with a stored one.
      if (!(err instanceof ServiceError && err.kind === "conflict")) throw err;
      stored = await storedSpec(invoker, spec.id);
      if (!stored) throw err;
    }
  }
  // Compared as it would be stored (a branch flattened, the default version): the same spec keeps
  // its model as it is, outbox and trail included.
  const flat = await invoker.invoke(operations.flattenSpec, { spec: spec as unknown as Json });
  const target = { version: DEFAULT_VERSION, ...flat };
  // A tab that changed the spec meanwhile (a 409) makes the evolution start again from what it stored;
  // after three, the stored model stays as that tab left it, shown and usable under the alert.
  for (let tries = 3; !jsonEqual(stored, target); tries--) {
    if (!tries) {
      throw kept(
        stored!,
        spec,
        "other tabs kept changing its stored spec meanwhile: reload the page to try again",
      );
    }
    const evolved = await evolve(invoker, stored!, spec, target);
    if (evolved === "replace") return await replace(invoker, journal, stored!, spec, replacing);
    stored = await storedSpec(invoker, spec.id);
    if (!stored) throw new Error(`Model '${spec.id}' was deleted while it was being opened`);
    if (evolved === "evolved" && !jsonEqual(stored, target)) {
      return await replace(invoker, journal, stored, spec, replacing);
    }
  }
}

/** The version of `spec`. */
const versionOf = (spec: ModelSpec) => spec.version ?? DEFAULT_VERSION;

/** Why the stored model stays as it was: `spec` could not take its place. */
function kept(stored: ModelSpec, spec: ModelSpec, why: string): StoredModelKept {
  const [from, to] = [stored, spec].map(versionOf);
  return new StoredModelKept(
    `Model '${spec.id}' keeps its stored version ${from} and its data: version ${to} of its spec could not ` +
      `replace it (${why})`,
    spec.id,
  );
}

/** Copies `snapshot`, the state of model `id` a replacement could not put back, where a person sees it. */
function logState(id: string, snapshot: unknown): void {
  console.error(`svc-embed: the state of model '${id}', which could not be put back:`, snapshot);
}

/**
 * Why the model another writer stored under `id` and wrote to is kept, not holding the state (`snapshot`)
 * of the stored model (of spec `stored`) a replacement took its place from; the state is copied to the
 * console. `what` says what happened first.
 */
function notHeld(what: string, id: string, stored: ModelSpec, snapshot: unknown): StoredModelKept {
  logState(id, snapshot);
  return new StoredModelKept(
    `${what} another writer stored a model under its id meanwhile and wrote to it: that model is kept, ` +
      `and the state of version ${versionOf(stored)} is in the console`,
    id,
  );
}

/**
 * Evolves the stored model (of spec `stored`) into one of `spec` (`target`, as stored), keeping its
 * audit trail and effects outbox; also the repair of a stored model that did not load. "replace" when
 * no evolution says the difference; "conflict" when another tab changed the model meanwhile. A spec
 * that is invalid or refuses the stored state changes nothing (StoredModelKept).
 */
async function evolve(
  invoker: Invoker,
  stored: ModelSpec,
  spec: ModelSpec,
  target: ModelSpec,
): Promise<"evolved" | "replace" | "conflict"> {
  const report = await invoker.invoke(operations.validateSpec, { spec: spec as unknown as Json });
  if (!report.valid) throw kept(stored, spec, specInvalid(report.errors).message);
  const evolution = evolutionBetween(stored, target);
  if (!evolution) return "replace";
  try {
    await invoker.invoke(operations.evolveSpec, {
      id: spec.id,
      evolution: { ...evolution, expectedVersion: stored.version ?? DEFAULT_VERSION } as unknown as Json,
    });
    return "evolved";
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    if (err.kind === "validation_failed") throw kept(stored, spec, err.message);
    // Another tab's evolution moved the stored version on (a 409 of `expectedVersion`); what the
    // evolution could not say (a spec too large once evolved, ...) a replacement may.
    return err.kind === "version_conflict" ? "conflict" : "replace";
  }
}

/**
 * Replaces the stored model (of spec `stored`) by one of `spec` (already
 * validated) with the same state; when its model cannot be created or refuses
 * the state, the old model is put back (its spec and state), unless another
 * writer stored a model under the id meanwhile and wrote to it: that one stays.
 */
async function replace(
  invoker: Settling,
  journal: ReplaceJournal,
  stored: ModelSpec,
  spec: ModelSpec,
  replacing: () => void,
): Promise<void> {
  const id = spec.id;
  // This page's writes wait for the replacement's end from here (a call that passed the hold just before
  // enters the service after the deletion, fails as not found, and is made again on the model that came back).
  replacing();
  let snapshot: Record<string, unknown> = {};
  let tries = 0;
  try {
    // The snapshot and the deletion are one turn of the model: another tab's write committed in between
    // makes the store refuse the deletion, and the snapshot is taken again with it (three times at most).
    await invoker.deleteModel(id, async (taken) => {
      if (tries++ === 3) {
        throw kept(stored, spec, "other tabs kept writing to it meanwhile: reload the page to try again");
      }
      snapshot = taken as unknown as Record<string, unknown>;
      // Durable before the delete: a tab that goes midway leaves it for the next open (finishInterrupted).
      await journal.write(id, { stored, snapshot, version: versionOf(spec) });
    });
  } catch (err) {
    // Not deleted: no replacement left midway.
    if (err instanceof StoredModelKept) await journal.remove(id);
    throw err;
  }
  try {
    await createWithState(invoker, spec, snapshot);
  } catch (err) {
    const why = (err as Error).message;
    const refused = `Model '${id}' could not take version ${versionOf(spec)} of its spec (${why}), and`;
    let finished: Finished;
    try {
      // Nothing was created (in one step): a model found under the id is another writer's, and the old one is
      // put back over it only when it holds no data of its own (the rule of a replacement left midway).
      finished = await finishInterrupted(invoker, journal, id);
    } catch (failed) {
      // The journal keeps the record for the next open (finishInterrupted).
      logState(id, snapshot);
      const message = (failed as Error).message;
      throw new Error(
        `${refused} putting back its stored model failed too (${message}): the next open (a reload of the ` +
          `page) puts it back from ${journal.where}, and its state is in the console`,
      );
    }
    // The state is back under the spec it was found with (another writer's may hold it under its own).
    if (finished === "back") throw kept(await storedSpec(invoker, id) ?? stored, spec, why);
    throw notHeld(refused, id, stored, snapshot);
  }
  await journal.remove(id);
}
