/**
 * `pair_browser` on the server's own `/mcp` (SPEC.md: offered in
 * remote-with-browser mode "and on the hosted endpoint"). Each MCP session has
 * its own {@link BrowserSession}, which makes the same `/pair` requests as
 * the CLI's, to this server in process (so the links, rate limits and
 * expiry are the routes' own). Until the person approves, the session's
 * tools act on the server's models, as its API key allows; once paired, on
 * the pairing's namespace only, exactly as the pairing's session token does
 * over REST, and its resource subscriptions watch the namespace's models
 * until the pairing ends.
 * Once paired, a session whose pairing ended (the person ended it, or the
 * server forgot it) refuses model calls until `pair_browser` pairs again: it
 * never falls back to the key's models behind the agent's back.
 *
 * @module
 */
import { ServiceError } from "../../engine/errors.ts";
import { BrowserSession } from "../../engine/operations/browser_session.ts";
import { type Invoker, localInvoker } from "../../engine/operations/invoker.ts";
import type { ModelApi } from "../../engine/service/api.ts";
import type { ModelService } from "../../engine/service/service.ts";
import { serviceCommitEvents } from "../../mcp/events.ts";
import type { McpSessionFactory } from "../../mcp/http.ts";
import { NamespacedApi } from "./namespaced_api.ts";
import type { PairingHost } from "./host.ts";

/** What model calls of a session whose pairing ended fail with. */
export const PAIRING_ENDED =
  "The browser pairing of this session ended (the person ended it, or the server " +
  "restarted): call pair_browser to pair again";

/**
 * The per-session targets of the server's `/mcp` when pairing is enabled:
 * `host` has the server's record of the sessions' uploads (REST's too) and
 * tells when a session ends.
 */
export function hostedPairingSessions(
  service: ModelService,
  host: Pick<PairingHost, "blobs" | "pairings">,
): McpSessionFactory {
  const commits = serviceCommitEvents(service);
  return ({ baseUrl, fetch }) => {
    const pairing = new BrowserSession({ baseUrl, fetch });
    let scoped: NamespacedApi | undefined;
    const paired = (): NamespacedApi | undefined => {
      const namespaceId = pairing.namespaceId;
      if (namespaceId === undefined) return undefined;
      if (scoped?.namespaceId !== namespaceId) scoped = new NamespacedApi(service, namespaceId, host.blobs);
      return scoped;
    };
    const api = (): ModelApi => paired() ?? service;
    const local = localInvoker(api, { authoring: service.authoring, pairing });
    let everPaired = false;
    const target: Invoker = {
      async invoke(op, input, options) {
        if (op.kind === "api" && (everPaired ||= pairing.namespaceId !== undefined)) {
          if (!(await pairing.alive())) throw new ServiceError("unauthorized", PAIRING_ENDED);
        }
        return await local.invoke(op, input, options);
      },
    };
    return {
      target,
      events: {
        async watch(modelId, onCommit, onEnd) {
          const session = paired();
          if (!session) return await commits.watch(modelId, onCommit);
          const stopCommits = await commits.watch(session.stored(modelId), onCommit);
          // The session's watches end with it, as its WebSocket feeds do: nothing more reaches the agent.
          const stopListening = host.pairings.onEnded((namespaceId) => {
            if (namespaceId !== session.namespaceId) return;
            stop();
            onEnd?.();
          });
          const stop = () => {
            stopCommits();
            stopListening();
          };
          return stop;
        },
      },
      features: { pairing: true },
    };
  };
}
