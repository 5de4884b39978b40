/**
 * The `http` repository transport: another server's REST API through the
 * remote client the operation registry derives (so its errors come back as the
 * same `ServiceError`s a local call throws, but for a refusal of our
 * credential: a 502, see ./upstream_refusal.ts), and its WebSocket change
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
import { changeFeed } from "../engine/operations/change_feed.ts";
import type { InvokeFn } from "../engine/operations/operation.ts";
import { valueAt } from "../engine/json/document.ts";
import { upstreamRefusal } from "./upstream_refusal.ts";

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
  // A link's call: the server refusing our credential is a 502 naming it, not a 401 or 403 of ours.
  const invoke: InvokeFn = async (op, input, runOptions) => {
    try {
      return await remote.invoke(op, input, runOptions);
    } catch (err) {
      throw upstreamRefusal(options.id, err) ?? err;
    }
  };
  const lookupTimeoutMs = options.lookupTimeoutMs ?? 5_000;
  const reconnectMs = options.reconnectMs ?? 1_000;
  // The server's change feed, reopened after a drop at a fixed delay; each open counts as a change of
  // everything (`$`), so a watch reads again what committed while it was not listening.
  const feed = changeFeed({
    baseUrl: base,
    apiKey: options.credential ?? undefined,
    initialDelayMs: reconnectMs,
    maxDelayMs: reconnectMs,
  });
  // The stop functions of the open watches.
  const watches = new Set<() => void>();

  return {
    id: options.id,
    repoClass: options.repoClass,
    async fetch(identity) {
      try {
        const signal = AbortSignal.timeout(lookupTimeoutMs);
        return await remote.invoke(getSpec, { id: identity }, { signal }) as ModelSpec;
      } catch (err) {
        // A 404 or an unreachable server is a miss (the next repository may hold it); a refusal is not.
        const refused = upstreamRefusal(options.id, err);
        if (refused) throw refused;
        return null;
      }
    },
    async publish(spec) {
      try {
        await remote.invoke(createModel, { spec });
      } catch (err) {
        throw upstreamRefusal(options.id, err) ?? publicationRefused(options.id, err);
      }
    },
    async write(identity, path, value, signal) {
      await invoke(mutate, { id: identity, mutations: { [path]: value } }, { signal });
      return await invoke(getState, { id: identity }, { signal }) as Json;
    },
    async read(identity, path, signal) {
      return valueAt(await invoke(getState, { id: identity }, { signal }) as Json, path);
    },
    watch(identity, onChange) {
      // A watch hears paths: a mutation's written and re-derived ones; after an evolution (every eager
      // value recomputed) and a deletion (found missing; the feed has ended) everything is read again.
      const stop = feed.subscribe(identity, (event) => {
        if (event.kind === "mutation") onChange([...event.mutatedPaths, ...event.derivedUpdated]);
        else onChange(["$"]);
      });
      watches.add(stop);
      return Promise.resolve(() => {
        watches.delete(stop);
        stop();
      });
    },
    close() {
      for (const stop of watches) stop();
      watches.clear();
      return Promise.resolve();
    },
  };
}
