/// <reference lib="dom" />
/**
 * Where models run, as one shape for every page: an invoker of the operation
 * registry and a live feed. In the tab: a {@link ModelService} over IndexedDB
 * with {@link localInvoker}; against a server: {@link remoteInvoker} for every
 * operation (the one REST client) and the WebSocket feed.
 *
 * @module
 */
import { type EffectExecutor, TIMER_EXECUTOR } from "../../engine/effects/executor.ts";
import { httpExecutor } from "../../engine/effects/http_executor.ts";
import { type Invoker, localInvoker, ModelService, remoteInvoker, webPlatform } from "../../engine/mod.ts";
import { localAuthoring } from "../../engine/service/authoring.ts";
import { type BrowserStorage, openBrowserStorage } from "../stores/mod.ts";
import { type Feed, serviceFeed } from "./feed.ts";
import { fetchTransport } from "./fetch_transport.ts";
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
  /** Whether the tab's IndexedDB holds model `id`, whether or not its service took it in yet (tab mode). */
  stored?(id: string): Promise<boolean>;
  close(): Promise<void>;
}

/** Options of {@link openTabConnection}. */
export interface TabOptions {
  /** The IndexedDB database (default `svc-playground`); `null` keeps everything in memory. */
  database?: string | null;
  /**
   * Told of what the tab's service and storage warn about (a stored model not loaded, a state that could
   * not be rebuilt and was reset, kept for recovery), besides the console.
   */
  onWarning?(message: string): void;
}

/**
 * The effects a tab runs itself, like a server: timers, and `server` requests
 * with `fetch` (the page's CORS rules instead of the egress guard); links
 * between the tab's models come with the service. `llm` and plugin kinds
 * stay with servers (their jobs fail with `llm not configured` /
 * `no_executor_for_kind`); `caller` effects reach the page as `svc-effect`
 * events of the view elements.
 */
export function tabExecutors(transport = fetchTransport()): EffectExecutor[] {
  return [TIMER_EXECUTOR, httpExecutor(transport)];
}

/** Runs the engine in this tab, persisting to IndexedDB (its effect outbox too: a reload resumes it). */
export async function openTabConnection(options: TabOptions = {}): Promise<Connection> {
  const database = options.database === undefined ? "svc-playground" : options.database;
  const warn = (message: string) => {
    console.warn(message);
    options.onWarning?.(message);
  };
  const storage: Partial<BrowserStorage> = database === null
    ? {}
    : await openBrowserStorage(database, { warn });
  const service = await ModelService.open({
    platform: webPlatform(),
    ...storage,
    executors: tabExecutors(),
    observer: { warn },
  });
  return {
    mode: "tab",
    label: database === null ? "this tab (memory)" : `this tab (IndexedDB ${database})`,
    invoker: localInvoker(service),
    feed: serviceFeed(service),
    service,
    ...storage.store && { stored: (id: string) => storage.store!.has(id) },
    close: () => service.close(),
  };
}

/** Options of {@link openServerConnection}. */
export interface ServerOptions {
  baseUrl: string;
  apiKey?: string;
  /**
   * Readable problems of the live feed: a dropped socket, or one refused for good (`final`: the key no longer
   * accepted, a paired session's feed closed as its session moved or ended).
   */
  onProblem?(message: string, final: boolean): void;
  /** The live feed is back after such a problem, or the model it followed turned out deleted meanwhile. */
  onRecovered?(): void;
}

/**
 * Talks to a server: REST through the remote invoker, live updates over its WebSocket feed. Closing it
 * aborts its requests in flight and refuses new ones, so none goes out with its key after (a paired
 * session's token once the session is ended).
 */
export function openServerConnection(options: ServerOptions): Connection {
  const closed = new AbortController();
  const invoker = remoteInvoker({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey || undefined,
    fetch: (request) =>
      fetch(new Request(request, { signal: AbortSignal.any([request.signal, closed.signal]) })),
    authoring: () => Promise.resolve(localAuthoring()),
  });
  return {
    mode: "server",
    label: options.baseUrl,
    invoker,
    feed: socketFeed({ ...options, invoker }),
    close: () => Promise.resolve(closed.abort()),
  };
}
