/// <reference lib="dom" />
/**
 * The journal of the embed's spec replacements: while a stored model is
 * replaced (deleted, created again from the new spec, its state restored), its
 * stored spec and state are kept in IndexedDB, not only in the tab's memory,
 * so that a tab closed or crashed midway loses nothing: the next open of the
 * model puts the stored model back before anything else.
 *
 * @module
 */
import { createStore, del, get, set, type UseStore } from "idb-keyval";
import {
  DEFAULT_VERSION,
  describeFindings,
  type Invoker,
  type Json,
  type ModelService,
  type ModelSpec,
  operations,
  ServiceError,
} from "../../engine/mod.ts";
import { formatPath, type Segment } from "../../engine/json/path.ts";
import { isContainer, jsonEqual } from "../../engine/json/value.ts";

/** What a replacement keeps until it finished: the stored model, and the version replacing it. */
export interface ReplaceRecord {
  stored: ModelSpec;
  snapshot: Record<string, unknown>;
  version: string;
}

/**
 * The page's service as an open settles through it: its calls, its deletion of a model that hands the
 * model's snapshot to keep first, in the same turn, again when another tab wrote to it before the deletion,
 * and its creation of a model in a given state.
 */
export type Settling = Invoker & Pick<ModelService, "deleteModel" | "createModel">;

/** Where {@link ReplaceRecord}s are kept, one per model id. */
export interface ReplaceJournal {
  /** Where the records are, for people (`the IndexedDB database svc-embed-journal`). */
  readonly where: string;
  read(id: string): Promise<ReplaceRecord | undefined>;
  write(id: string, record: ReplaceRecord): Promise<void>;
  remove(id: string): Promise<void>;
}

/** A journal in the IndexedDB database `database` (its own, so the models' database layout stays as it is). */
export function idbReplaceJournal(database: string): ReplaceJournal {
  // Opened on first use: most opens find no replacement to make.
  let store: UseStore | undefined;
  const use = () => store ??= createStore(database, "replacing");
  return {
    where: `the IndexedDB database ${database}`,
    read: (id) => get<ReplaceRecord>(id, use()),
    write: (id, record) => set(id, record, use()),
    remove: (id) => del(id, use()),
  };
}

/**
 * Why a replacement left midway cannot be finished while the model stored under its id did not load
 * (`notLoaded`, its spec refused by this version): its state cannot be read, so whether it holds data
 * of its own is unknown, and neither it nor the record is touched.
 */
function unjudged(journal: ReplaceJournal, record: ReplaceRecord, notLoaded: ServiceError): Error {
  const { id, version = DEFAULT_VERSION } = record.stored;
  // Its findings, without the REST routes the service's message names (a page has none).
  const findings = (notLoaded.body?.errors ?? []) as { location: string; message: string }[];
  return new Error(
    `Model '${id}' is stored but this version cannot load it: its stored spec no longer validates (` +
      `${describeFindings(findings)}). A replacement of its version ` +
      `${version} by ${record.version} was left midway: the data it had before is kept in ${journal.where} ` +
      `(key '${id}'), and the next open puts it back once the stored model is deleted (deleteModel of ` +
      "createModelService())",
  );
}

/**
 * Creates the model of `spec` with the state of `snapshot`; when this version refuses `spec` itself (a
 * check added since it was stored), the model of `instead` takes the state, when given.
 */
export async function createWithState(
  invoker: Settling,
  spec: ModelSpec,
  snapshot: Record<string, unknown>,
  instead?: ModelSpec,
): Promise<void> {
  try {
    // In one step: a write another tab or an effect makes to the model comes after its state, not under it.
    // The state is restored, its values those of `spec`, not the snapshot's (taken under the stored spec).
    await invoker.createModel(spec, snapshot);
  } catch (err) {
    if (!(instead && err instanceof ServiceError && err.body?.error === "Spec validation failed")) throw err;
    return await createWithState(invoker, instead, snapshot);
  }
}

/**
 * What finishing a replacement left midway came to ({@link finishInterrupted}): `"none"`, there was none;
 * `"back"`, the model under the id holds the journaled state (put back, or found holding it); else the
 * record, dropped, whose state the model found under the id does not hold: written since, it kept its place.
 */
export type Finished = "none" | "back" | ReplaceRecord;

/**
 * The addresses of the values of `state` that `doc` does not hold: an object's members and an array's elements
 * compared one by one (a write since may have added members, or elements after the last), anything else whole.
 */
function unheld(doc: Json, state: Json, at: Segment[] = [], out: Segment[][] = []): Segment[][] {
  if (!isContainer(state) || !isContainer(doc) || Array.isArray(state) !== Array.isArray(doc)) {
    if (!jsonEqual(doc, state)) out.push(at);
    return out;
  }
  const members = doc as Record<string, Json>;
  for (const [key, value] of Object.entries(state)) {
    const where = [...at, Array.isArray(state) ? Number(key) : key];
    if (Object.hasOwn(members, key)) unheld(members[key], value, where, out);
    else out.push(where);
  }
  return out;
}

/**
 * Whether a write recorded in the audit trail of model `id` touched each of `addresses` (at, inside or above it):
 * a value of the state written over since is no value lost (the write came after it, as it would have anyway).
 */
async function writtenOver(invoker: Invoker, id: string, addresses: Segment[][]): Promise<boolean> {
  for (const address of addresses) {
    const pathPrefix = formatPath(address);
    if (!(await invoker.invoke(operations.getAudit, { id, pathPrefix, limit: 1 })).length) return false;
  }
  return true;
}

/**
 * Finishes a replacement of model `id` a tab left midway, when the journal
 * holds one, then drops the record: a model missing, or created again but not
 * given its state (another document than the journaled one, and no write
 * since), is put back as it was stored, or, when this version refuses its stored spec, given to the spec
 * being opened (`opening`), as the replacement meant to. Run before an open of `id`, under its lock;
 * `replacing` is called first when there is one to finish. A model found written since keeps its place: the
 * state is back when it holds every value of it but those a write since touched (the replacement's own model,
 * restored, then written to), else the dropped record is returned, its state held nowhere else.
 */
export async function finishInterrupted(
  invoker: Settling,
  journal: ReplaceJournal,
  id: string,
  opening?: ModelSpec,
  replacing?: () => void,
): Promise<Finished> {
  const record = await journal.read(id);
  if (!record) return "none";
  replacing?.();
  let current: { baseDoc: Json } | null;
  try {
    current = await invoker.invoke(operations.snapshot, { id });
  } catch (err) {
    if (err instanceof ServiceError && err.body?.error === "Model not loaded") {
      throw unjudged(journal, record, err);
    }
    if (!(err instanceof ServiceError && err.kind === "not_found")) throw err;
    current = null;
  }
  // Found holding every journaled value, the state is back (restored, maybe written to since): a restore
  // writes no audit record, so no record says what a written model was created with, but what it holds does.
  // A model created without them (another writer's) holds them all only where nothing of them is lost.
  const missing = current ? unheld(current.baseDoc, record.snapshot.baseDoc as Json) : [];
  const holds = !!current && !missing.length;
  // A restore writes no audit record and a write does: a model written since holds data of its own.
  let back = !current ||
    (!holds && (await invoker.invoke(operations.getAudit, { id, limit: 1 })).length === 0);
  if (back) {
    // Deleted as judged only: a write another tab made since holds data of its own, kept with the model.
    const written = new Error("written since");
    const judged = current?.baseDoc;
    try {
      if (current) {
        await invoker.deleteModel(
          id,
          (now) => jsonEqual(now.baseDoc, judged!) ? Promise.resolve() : Promise.reject(written),
        );
      }
      await createWithState(invoker, record.stored, record.snapshot, opening);
    } catch (err) {
      if (err !== written) throw err;
      back = false;
    }
  }
  // The replacement's own model (or any), written over some of those values since, lost none of them: only
  // one lacking a value no write since touched lost it (another writer's, created without the state).
  const kept = back || holds || (!!current && await writtenOver(invoker, id, missing));
  await journal.remove(id);
  return kept ? "back" : record;
}
