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
 * ```
 *
 * @module
 */
import {
  DEFAULT_VERSION,
  type Json,
  type ModelService,
  type ModelSpec,
  operations,
  type ServiceEvent,
} from "../../engine/mod.ts";
import { jsonEqual } from "../../engine/json/value.ts";
import type { WriteResult } from "../../engine/service/api.ts";
import { type Connection, openTabConnection } from "../host/connection.ts";

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

let shared: Promise<Connection> | undefined;

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
  const connection = await openTabConnection({
    database: options.database === undefined ? EMBED_DATABASE : options.database,
  });
  return connection.service!;
}

/** The page-wide connection every `<svc-model>` uses. */
export function pageConnection(): Promise<Connection> {
  return shared ??= openTabConnection({ database: EMBED_DATABASE });
}

/**
 * Makes `spec` available in the page-wide service and returns its id: a model
 * stored by an earlier visit with the same spec keeps its state; one stored
 * with another spec is replaced, keeping its state when the new spec accepts it.
 */
export async function open(spec: ModelSpec): Promise<{ id: string; connection: Connection }> {
  const connection = await pageConnection();
  const { invoker } = connection;
  const id = spec.id;
  const known = (await invoker.invoke(operations.listModels, {})).includes(id);
  if (known) {
    const stored = await invoker.invoke(operations.getSpec, { id });
    // Compared as it would be stored (a branch flattened, the default version): the same spec keeps
    // its model as it is, outbox and trail included.
    const flat = await invoker.invoke(operations.flattenSpec, { spec: spec as unknown as Json });
    if (jsonEqual(stored, { version: DEFAULT_VERSION, ...flat })) return { id, connection };
    const snapshot = await invoker.invoke(operations.snapshot, { id });
    await invoker.invoke(operations.deleteModel, { id });
    await invoker.invoke(operations.createModel, { spec: spec as unknown as Json });
    // The old state is kept only when the new spec still accepts it.
    await invoker.invoke(operations.restore, { id, snapshot: snapshot as unknown as Record<string, unknown> })
      .catch(() => undefined);
    return { id, connection };
  }
  await invoker.invoke(operations.createModel, { spec: spec as unknown as Json });
  return { id, connection };
}

/** Writes base fields of a model of the page-wide service. */
export async function mutate(id: string, mutations: Record<string, Json>): Promise<WriteResult> {
  const { invoker } = await pageConnection();
  return await invoker.invoke(operations.mutate, { id, mutations });
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
