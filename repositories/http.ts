/**
 * The `http` repository transport: another server's REST API through the
 * remote client the operation registry derives (so its errors come back as the
 * same `ServiceError`s a local call throws), and its WebSocket change
 * feed for watches. The locator is operator configuration, so calls go out
 * without the effect egress guard.
 *
 * @module
 */
import {
  publicationRefused,
  type Repository,
  type RepositoryClass,
} from "../engine/composition/repository.ts";
import type { Json } from "../engine/json/value.ts";
import type { ModelSpec } from "../engine/model/types.ts";
import {
  createModel,
  getSpec,
  getState,
  mutate,
  normaliseBaseUrl,
  remoteInvoker,
} from "../engine/operations/mod.ts";
import { valueAt } from "../engine/json/document.ts";

/** Options of {@link httpRepository}. */
export interface HttpRepositoryOptions {
  id: string;
  repoClass: RepositoryClass;
  baseUrl: string;
  /** The server's API key. */
  credential: string | null;
  /** How long a spec lookup may take before it counts as a miss (ms). */
  lookupTimeoutMs?: number;
  /** Delay before a dropped change feed reconnects (ms). */
  reconnectMs?: number;
}

/** A repository over another server's REST API. */
export function httpRepository(options: HttpRepositoryOptions): Repository {
  const base = normaliseBaseUrl(options.baseUrl);
  const remote = remoteInvoker({
    baseUrl: base,
    apiKey: options.credential ?? undefined,
    fetch: (request) => fetch(request),
    authoring: () => Promise.reject(new Error("a repository runs no authoring tools")),
  });
  const lookupTimeoutMs = options.lookupTimeoutMs ?? 5_000;
  const reconnectMs = options.reconnectMs ?? 1_000;
  const sockets = new Set<() => void>();

  return {
    id: options.id,
    repoClass: options.repoClass,
    async fetch(identity) {
      try {
        const signal = AbortSignal.timeout(lookupTimeoutMs);
        return await remote.invoke(getSpec, { id: identity }, { signal }) as ModelSpec;
      } catch {
        // A 404 or an unreachable server is a miss: the next repository may hold it.
        return null;
      }
    },
    async publish(spec) {
      try {
        await remote.invoke(createModel, { spec });
      } catch (err) {
        throw publicationRefused(options.id, err);
      }
    },
    async write(identity, path, value, signal) {
      await remote.invoke(mutate, { id: identity, mutations: { [path]: value } }, { signal });
      return await remote.invoke(getState, { id: identity }, { signal }) as Json;
    },
    async read(identity, path, signal) {
      return valueAt(await remote.invoke(getState, { id: identity }, { signal }) as Json, path);
    },
    watch(identity, onChange) {
      const stop = feed(base, identity, options.credential, reconnectMs, onChange);
      sockets.add(stop);
      return Promise.resolve(() => {
        sockets.delete(stop);
        stop();
      });
    },
    close() {
      for (const stop of sockets) stop();
      sockets.clear();
      return Promise.resolve();
    },
  };
}

/**
 * Follows a model's change feed (`/models/{id}/subscribe`), reconnecting after
 * a drop until stopped; each mutation frame reports its mutated and derived
 * paths, and each time the feed opens everything (`$`) counts as changed.
 */
function feed(
  base: string,
  identity: string,
  credential: string | null,
  reconnectMs: number,
  onChange: (paths: string[]) => void,
): () => void {
  const url = new URL(`${base}/models/${encodeURIComponent(identity)}/subscribe`);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  if (credential) url.searchParams.set("token", credential);
  let stopped = false;
  let socket: WebSocket | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const open = () => {
    if (stopped) return;
    socket = new WebSocket(url);
    // Commits made before the feed was open (since the watch was armed, or while it was down) sent no
    // frame here: read again once it is.
    socket.onopen = () => onChange(["$"]);
    socket.onmessage = (event) => {
      let frame: Record<string, unknown>;
      try {
        frame = JSON.parse(String(event.data));
      } catch {
        return;
      }
      if ((frame.kind ?? "mutation") !== "mutation") return;
      const paths = [frame.mutatedPaths, frame.derivedUpdated].flatMap((list) =>
        Array.isArray(list) ? list.filter((p): p is string => typeof p === "string") : []
      );
      onChange(paths);
    };
    socket.onclose = () => {
      socket = null;
      if (!stopped) timer = setTimeout(open, reconnectMs);
    };
    socket.onerror = () => {};
  };
  open();
  return () => {
    stopped = true;
    clearTimeout(timer);
    socket?.close();
  };
}
