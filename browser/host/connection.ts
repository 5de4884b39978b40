/// <reference lib="dom" />
/**
 * Where models run, as one shape for every page: an invoker of the operation
 * registry and a live feed. In the tab: a {@link ModelService} over IndexedDB
 * with {@link localInvoker}; against a server: {@link remoteInvoker} for every
 * operation (the one REST client) and the WebSocket feed.
 *
 * @module
 */
import { type Invoker, localInvoker, ModelService, remoteInvoker, webPlatform } from "../../engine/mod.ts";
import { localAuthoring } from "../../engine/service/authoring.ts";
import { openBrowserStorage } from "../stores/mod.ts";
import { type Feed, serviceFeed } from "./feed.ts";
import { socketFeed } from "./socket_feed.ts";

/** An open connection. */
export interface Connection {
  mode: "tab" | "server";
  /** For people: `this tab (IndexedDB svc-playground)` or the server URL. */
  label: string;
  invoker: Invoker;
  feed: Feed;
  /** The in-tab service (tab mode only). */
  service?: ModelService;
  close(): Promise<void>;
}

/** Options of {@link openTabConnection}. */
export interface TabOptions {
  /** The IndexedDB database (default `svc-playground`); `null` keeps everything in memory. */
  database?: string | null;
}

/** Runs the engine in this tab, persisting to IndexedDB. */
export async function openTabConnection(options: TabOptions = {}): Promise<Connection> {
  const database = options.database === undefined ? "svc-playground" : options.database;
  const storage = database === null ? {} : await openBrowserStorage(database);
  const service = await ModelService.open({ platform: webPlatform(), ...storage });
  return {
    mode: "tab",
    label: database === null ? "this tab (memory)" : `this tab (IndexedDB ${database})`,
    invoker: localInvoker(service),
    feed: serviceFeed(service),
    service,
    close: () => service.close(),
  };
}

/** Options of {@link openServerConnection}. */
export interface ServerOptions {
  baseUrl: string;
  apiKey?: string;
  /** Readable problems of the live feed (a dropped socket). */
  onProblem?(message: string): void;
}

/** Talks to a server: REST through the remote invoker, live updates over its WebSocket feed. */
export function openServerConnection(options: ServerOptions): Connection {
  const invoker = remoteInvoker({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey || undefined,
    fetch: (request) => fetch(request),
    authoring: () => Promise.resolve(localAuthoring()),
  });
  return {
    mode: "server",
    label: options.baseUrl,
    invoker,
    feed: socketFeed(options),
    close: () => Promise.resolve(),
  };
}
