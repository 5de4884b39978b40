/**
 * `pair_browser` on the server's own `/mcp` (SPEC.md: offered in
 * remote-with-browser mode "and on the hosted endpoint"). Each MCP session has
 * its own {@link BrowserSession}, which makes the same `/pair` requests as
 * the CLI's, to this server in process (so the links, rate limits and
 * expiry are the routes' own). Until the person approves, the session's
 * tools act on the server's models, as its API key allows; once paired, on
 * the pairing's namespace only, exactly as the pairing's session token does
 * over REST, and its resource subscriptions watch the namespace's models.
 *
 * @module
 */
import { BrowserSession } from "../../engine/operations/browser_session.ts";
import { localInvoker } from "../../engine/operations/invoker.ts";
import type { ModelApi } from "../../engine/service/api.ts";
import type { ModelService } from "../../engine/service/service.ts";
import { serviceCommitEvents } from "../../mcp/events.ts";
import type { McpSessionFactory } from "../../mcp/http.ts";
import { NamespacedApi } from "./namespaced_api.ts";

/** The per-session targets of the server's `/mcp` when pairing is enabled. */
export function hostedPairingSessions(service: ModelService): McpSessionFactory {
  const commits = serviceCommitEvents(service);
  return ({ baseUrl, fetch }) => {
    const pairing = new BrowserSession({ baseUrl, fetch });
    let scoped: NamespacedApi | undefined;
    const paired = (): NamespacedApi | undefined => {
      const namespaceId = pairing.namespaceId;
      if (namespaceId === undefined) return undefined;
      if (scoped?.namespaceId !== namespaceId) scoped = new NamespacedApi(service, namespaceId);
      return scoped;
    };
    const api = (): ModelApi => paired() ?? service;
    return {
      target: localInvoker(api, { authoring: service.authoring, pairing }),
      events: { watch: (modelId, onCommit) => commits.watch(paired()?.stored(modelId) ?? modelId, onCommit) },
      features: { pairing: true },
    };
  };
}
