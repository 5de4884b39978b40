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
import type { Repository, RepositoryClass } from "../engine/composition/repository.ts";
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
import {
  changeFeed,
  type ChangeFeedSocketConstructor,
  feedRefusal,
} from "../engine/operations/change_feed.ts";
import { NoAnswerError } from "../engine/errors.ts";
import { unanswered } from "../engine/operations/fetch_within.ts";
import { GLOBAL_SCHEDULER, type Scheduler } from "../engine/ports.ts";
import type { InvokeFn } from "../engine/operations/operation.ts";
import { valueAt } from "../engine/json/document.ts";
import { upstreamRefusal } from "./upstream_refusal.ts";
import {
  lookupFailure,
  publicationFailure,
  type RepositoryAnswer,
  retryAfterSeconds,
} from "./lookup_failure.ts";
import { openWithin } from "./open_grace.ts";

/** Reconnects in a row a watch's feed makes before the watch ends (its waits double: 1, 2, 4… 32 s by default). */
const WATCH_RECONNECTS = 6;

/** Options of {@link httpRepository}. */
export interface HttpRepositoryOptions {
  id: string;
  repoClass: RepositoryClass;
  baseUrl: string;
  /** The server's API key. */
  credential: string | null;
  /** How long a spec lookup may take before it counts as a miss, the repository not answering (ms). */
  lookupTimeoutMs?: number;
  /** Delay before a dropped change feed first reconnects (ms); it doubles with each failed reconnect. */
  reconnectMs?: number;
  /** The HTTP port (default the global `fetch`; a stub in tests). */
  fetch?: (request: Request) => Promise<Response>;
  /** How long a change feed's socket may take to open before it counts as dropped (ms, default 10 000). */
  openTimeoutMs?: number;
  /** The change feed's WebSocket constructor (default the global one; a fake in tests). */
  WebSocket?: ChangeFeedSocketConstructor;
  /** The change feed's reconnect and open timers (default the global ones). */
  scheduler?: Scheduler;
}

/** A repository over another server's REST API. */
export function httpRepository(options: HttpRepositoryOptions): Repository {
  const base = normaliseBaseUrl(options.baseUrl);
  const over = (port: (request: Request) => Promise<Response>) =>
    remoteInvoker({
      baseUrl: base,
      apiKey: options.credential ?? undefined,
      fetch: port,
      authoring: () => Promise.reject(new Error("a repository runs no authoring tools")),
    });
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const remote = over(send);
  /**
   * A client for one call, with what the server answered it (its status, `null`: no answer; its `Retry-After`):
   * its failure's meaning.
   */
  const answering = () => {
    const answer: RepositoryAnswer = { status: null };
    const client = over(async (request) => {
      const response = await send(request);
      answer.status = response.status;
      answer.retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
      return response;
    });
    return { remote: client, answer };
  };
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
  const scheduler = options.scheduler ?? GLOBAL_SCHEDULER;
  // A socket that hangs (neither opens nor closes) is a drop too, or the watch would wait on it unreported.
  const Socket = openWithin(
    options.WebSocket ?? (globalThis as unknown as { WebSocket: ChangeFeedSocketConstructor }).WebSocket,
    scheduler,
    options.openTimeoutMs ?? 10_000,
  );
  // The stop functions of the open watches.
  const watches = new Set<() => void>();

  /**
   * Follows `identity` through the server's change feed: each open counts as a change of everything (`$`), so
   * a watch reads again what committed while it was not listening. After a drop the REST API says why: a
   * refusal of our credential ends the watch, a model gone ends it as a change read again (found missing);
   * otherwise it reconnects after 1, 2, 4… reconnect delays and ends after WATCH_RECONNECTS in a row failed.
   * A socket that has not opened within the open timeout (a hung connect) counts as dropped (./open_grace.ts).
   * The interruption is reported once its first reconnect fails too: a blip the feed is back from at once
   * is no failure of the link (a model there but not loaded is reported at once: it waits for a repair).
   */
  const follow = (
    identity: string,
    onChange: (paths: string[]) => void,
    onProblem: (problem: string, final: boolean) => void = () => {},
  ): () => void => {
    let drops = 0;
    let ended = false;
    const end = (message: string | null) => {
      if (ended) return;
      ended = true;
      watches.delete(stop);
      unsubscribe();
      if (message) onProblem(`feed ended: ${message}`, true);
    };
    const named = (message: string) => `Repository '${options.id}': ${message}`;
    // Opens of the feed so far: a drop's answer that comes after the feed opened again is stale.
    let opens = 0;
    const dropped = async (message: string) => {
      const open = opens;
      const refusal = await feedRefusal(remote, identity);
      if (ended || open !== opens) return;
      const refused = upstreamRefusal(options.id, refusal);
      if (refused) return end(refused.message);
      if (refusal?.kind === "not_found") {
        end(null);
        return onChange(["$"]);
      }
      if (++drops > WATCH_RECONNECTS) {
        return end(
          named(`Live updates of '${identity}' stopped after ${WATCH_RECONNECTS} failed reconnects`),
        );
      }
      if (drops === 2 || refusal) onProblem(`feed interrupted: ${named(refusal?.message ?? message)}`, false);
    };
    const unsubscribe = changeFeed({
      baseUrl: base,
      apiKey: options.credential ?? undefined,
      initialDelayMs: reconnectMs,
      maxDelayMs: reconnectMs * 2 ** (WATCH_RECONNECTS - 1),
      WebSocket: Socket,
      scheduler,
      onProblem: (message, final) => final ? end(named(message)) : void dropped(message),
      onRecovered: () => {
        drops = 0;
        opens++;
      },
    }).subscribe(identity, (event) => {
      // A watch hears paths: a mutation's written and re-derived ones; after an evolution (every eager value
      // recomputed) and a deletion (found missing; the feed has ended) everything is read again.
      // Meta keys are not paths it hears: a read-link reads values, which a meta-only change leaves as they were.
      if (event.kind === "mutation") onChange([...event.mutatedPaths, ...event.derivedUpdated]);
      else onChange(["$"]);
    });
    const stop = () => end(null);
    watches.add(stop);
    return stop;
  };

  return {
    id: options.id,
    repoClass: options.repoClass,
    async fetch(identity) {
      const lookup = answering();
      // The lookup's deadline (shorter than the client's bound on every request), as the caller's signal.
      const signal = AbortSignal.timeout(lookupTimeoutMs);
      try {
        return await lookup.remote.invoke(getSpec, { id: identity }, { signal }) as ModelSpec;
      } catch (err) {
        // Its abort is the server not answering in time, not one out of reach.
        const reason = signal.aborted ? unanswered(base, lookupTimeoutMs) : err;
        // A body stalled after the status line is no answer either: a miss, as a silent server is (and as an
        // svc mcp --url child relays the same stall).
        if (reason instanceof NoAnswerError) lookup.answer.status = null;
        const failure = lookupFailure(options.id, identity, reason, lookup.answer);
        if (failure) throw failure;
        return null;
      }
    },
    async publish(spec) {
      const publication = answering();
      try {
        await publication.remote.invoke(createModel, { spec });
      } catch (err) {
        throw publicationFailure(options.id, err, publication.answer);
      }
    },
    async write(identity, path, value, signal) {
      await invoke(mutate, { id: identity, mutations: { [path]: value } }, { signal });
      return await invoke(getState, { id: identity }, { signal }) as Json;
    },
    async read(identity, path, signal) {
      return valueAt(await invoke(getState, { id: identity }, { signal }) as Json, path);
    },
    watch(identity, onChange, onProblem) {
      return Promise.resolve(follow(identity, onChange, onProblem));
    },
    close() {
      for (const stop of watches) stop();
      watches.clear();
      return Promise.resolve();
    },
  };
}
