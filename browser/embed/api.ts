/// <reference lib="dom" />
/**
 * The JavaScript API of the embed script, for apps that want more than the
 * element: a page-wide service running in the tab over IndexedDB
 * (`svc-embed` by default), opened on first use and shared by every
 * `<svc-model>`.
 *
 * ```js
 * import { open, mutate, subscribe } from "./svc-embed.js";
 * const { id } = await open(spec);            // registers it, or finds it from an earlier visit
 * const stop = subscribe((event) => console.log(event.type, event.modelId));
 * await mutate(id, { "$.qty": 3 });
 * (await getState(id)).qty;                   // 3
 * ```
 *
 * @module
 */
import {
  DEFAULT_VERSION,
  type Invoker,
  type Json,
  type ModelService,
  type ModelSpec,
  operations,
  type ServiceEvent,
  specInvalid,
} from "../../engine/mod.ts";
import { isObject, jsonEqual } from "../../engine/json/value.ts";
import type { WriteResult } from "../../engine/service/api.ts";
import { type Connection, openTabConnection } from "../host/connection.ts";
import { afterHolds, type HoldingFeed, holdingFeed } from "./held_feed.ts";
import { followOwn, type OwnPage } from "./own_replace.ts";
import { idbReplaceJournal } from "./replace_journal.ts";
import { settle, StoredModelKept, storedSpec } from "./settle.ts";
import { settledVersion } from "./settled.ts";

export { StoredModelKept };

/** Options of {@link createModelService}. */
export interface EmbedServiceOptions {
  /**
   * The IndexedDB database (default `svc-embed`, the one the page's `<svc-model>` elements use);
   * another name keeps the service's models apart; `null` keeps them in memory only.
   */
  database?: string | null;
}

/** The database of the page-wide service. */
export const EMBED_DATABASE = "svc-embed";

/**
 * A connection whose feed holds back what an open does to its model (held_feed.ts), and whose invoker
 * makes a call on a held model once the hold is over (`direct` makes it at once).
 */
export type PageConnection = Connection & { feed: HoldingFeed; direct: Invoker } & OwnPage;

let shared: Promise<PageConnection> | undefined;

/** Who listens to the page-wide service's warnings (settled.ts: a model this tab cannot load). */
const warned = new Set<(message: string) => void>();

/** The page-wide service's replacements under way, kept until they finished (README "In the browser", Embedding). */
const journal = idbReplaceJournal(`${EMBED_DATABASE}-journal`);

/**
 * A new service running in this tab, for apps that manage models themselves.
 * By default it works on the page's models: it opens `svc-embed`, the database
 * of the `<svc-model>` elements, so it sees the models they show and they show
 * its writes. It is a writer of its own over that database, coordinated with
 * the page-wide service and with other tabs as any two tabs are (no write
 * lost, each effect run once; README "Storage in the tab"). Pass another
 * `database` for models of its own, or `null` for memory only.
 */
export async function createModelService(options: EmbedServiceOptions = {}): Promise<ModelService> {
  const database = options.database === undefined ? EMBED_DATABASE : options.database;
  const { service } = await openTabConnection({ database });
  // Its replacement of a model the page shows is this tab's: the page says nothing of a deletion.
  if (database === EMBED_DATABASE) followOwn(service!, () => shared);
  return service!;
}

/** The page-wide connection every `<svc-model>` uses. */
export function pageConnection(): Promise<PageConnection> {
  const onWarning = (message: string) => warned.forEach((listener) => listener(message));
  return shared ??= openTabConnection({ database: EMBED_DATABASE, onWarning }).then((connection) => {
    const settled = (id: string) =>
      settledVersion({
        replacing: async (id) => !!await journal.read(id).catch(() => undefined),
        opensDone: (id) => exclusively(openLock(id), () => Promise.resolve()),
        version: (id) => storedVersion(connection.invoker, id),
        stored: connection.stored,
        feed: connection.feed,
        warnings: (listener) => (warned.add(listener), () => void warned.delete(listener)),
      }, id);
    const feed = holdingFeed(connection.feed, settled);
    const invoker = afterHolds(connection.invoker, feed);
    return { ...connection, feed, settled, direct: connection.invoker, invoker };
  });
}

/** The Web Lock an open of model `id` holds in whichever tab of the origin runs it. */
const openLock = (id: string) => `${EMBED_DATABASE}:open:${id}`;

/** The version of the model stored under `id` as this tab's service has it, `null` when there is none. */
async function storedVersion(invoker: Invoker, id: string): Promise<string | null> {
  const now = await storedSpec(invoker, id).catch(() => null);
  return now && (now.version ?? DEFAULT_VERSION);
}

/** What {@link open} resolves to. */
export interface Opened {
  id: string;
  connection: PageConnection;
}

/** The opens of this page in progress, by model id. */
const opening = new Map<string, { spec: ModelSpec; done: Promise<Opened> }>();

/**
 * Makes `spec` available in the page-wide service and returns its id: a model
 * stored by an earlier visit with the same spec keeps its state; one stored
 * with another spec is evolved into it (state, audit trail and outbox kept), or
 * replaced keeping its state where no evolution can say the change, when the new
 * spec is valid and accepts that state; otherwise the stored model stays as it was and the
 * open fails saying why (a {@link StoredModelKept}). Opens of one spec share one run (two elements of one
 * `src`); opens of one id run one at a time, in this page and, where the
 * browser has Web Locks, across its tabs.
 */
export function open(spec: ModelSpec): Promise<Opened> {
  // Nothing to key the open by: refused in the validator's words before storage is asked for no id (before,
  // IndexedDB's "No key or key range specified", or a TypeError thrown at once).
  if (!isObject(spec) || typeof spec.id !== "string") return refuseUnkeyed(spec);
  const id = spec.id;
  const last = opening.get(id);
  if (last && jsonEqual(last.spec, spec)) return last.done;
  const done = (last?.done.catch(() => undefined) ?? Promise.resolve()).then(async () => {
    const connection = await pageConnection();
    await exclusively(openLock(id), async () => {
      // The page's views of the model see it as it was until it is settled, then as it came out.
      const release = connection.feed.hold(id);
      try {
        const service = connection.service!;
        const settling = {
          ...connection.direct,
          deleteModel: service.deleteModel.bind(service),
          createModel: service.createModel.bind(service),
        };
        await settle(settling, journal, spec, () => connection.feed.stall(id));
      } finally {
        release(await storedVersion(connection.direct, id));
      }
    });
    return { id, connection };
  });
  opening.set(id, { spec, done });
  const forget = () => void (opening.get(id)?.done === done && opening.delete(id));
  done.then(forget, forget);
  return done;
}

/** Rejects with the validator's findings on `spec`, which is not an object with a string `id`. */
async function refuseUnkeyed(spec: unknown): Promise<never> {
  const { invoker } = await pageConnection();
  const { errors, warnings } = await invoker.invoke(operations.validateSpec, { spec: spec as Json });
  throw specInvalid(errors, warnings);
}

/** Runs `task` holding the Web Lock `name` (no other tab of the origin runs one of that name meanwhile); without Web Locks, at once. */
function exclusively<T>(name: string, task: () => Promise<T>): Promise<T> {
  const locks = globalThis.navigator?.locks;
  return locks ? locks.request(name, task) : task();
}

/** Writes base fields of a model of the page-wide service. */
export async function mutate(id: string, mutations: Record<string, Json>): Promise<WriteResult> {
  const { invoker } = await pageConnection();
  return await invoker.invoke(operations.mutate, { id, mutations });
}

/**
 * The merged state of a model of the page-wide service: what its elements show, with every write `mutate`
 * made (a service of {@link createModelService} hears them as another tab does, a moment later).
 */
export async function getState(id: string): Promise<Json> {
  const { invoker } = await pageConnection();
  return await invoker.invoke(operations.getState, { id });
}

/** Listens to every change of the page-wide service's models; returns the unsubscribe function. */
export function subscribe(listener: (event: ServiceEvent) => void): () => void {
  let stop: (() => void) | undefined;
  let stopped = false;
  void pageConnection().then((connection) => {
    if (!stopped) stop = connection.service!.subscribe(listener);
  });
  return () => {
    stopped = true;
    stop?.();
  };
}
