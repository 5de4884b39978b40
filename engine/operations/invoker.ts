/**
 * Invokers run operations: in-process over a {@link ModelApi}
 * ({@link localInvoker}) or against a server's REST API (`remote.ts`). Every
 * surface (console, MCP, the browser) speaks to an invoker, so the same code
 * serves embedded and remote modes.
 *
 * @module
 */
import type { ModelApi } from "../service/api.ts";
import { type AuthoringEngine, localAuthoring } from "../service/authoring.ts";
import type { InvokeFn } from "./operation.ts";
import type { BrowserPairing } from "./pairing.ts";
import { checkPathMembers } from "./path_members.ts";

/** Runs operations somewhere. */
export interface Invoker {
  invoke: InvokeFn;
}

/** Options of {@link localInvoker}. */
export interface LocalInvokerOptions {
  /** The authoring tools (default: the API's own, as a {@link ModelService} shares its compiler, or new ones). */
  authoring?: AuthoringEngine;
  /** The browser pairing `pair_browser` drives (the server's own `/mcp`). */
  pairing?: BrowserPairing;
}

/**
 * An invoker over an in-process API: `api`, or the one a function names at
 * each call (a session whose calls move to its paired namespace).
 */
export function localInvoker(api: ModelApi | (() => ModelApi), options: LocalInvokerOptions = {}): Invoker {
  const current = typeof api === "function" ? api : () => api;
  const own = options.authoring ?? (current() as { authoring?: AuthoringEngine }).authoring;
  let created: AuthoringEngine | undefined;
  const tools = () => Promise.resolve(own ?? (created ??= localAuthoring()));
  const invoker: Invoker = {
    invoke: (op, input, runOptions) =>
      op.kind === "api"
        ? (checkPathMembers(op, input), op.run(current(), input, runOptions))
        : op.run({ invoke: invoker.invoke, authoring: tools, pairing: options.pairing }, input, runOptions),
  };
  return invoker;
}

/** An invoker as given, or a local one over a {@link ModelApi}. */
export function invokerOf(target: ModelApi | Invoker): Invoker {
  return "invoke" in target && typeof target.invoke === "function"
    ? target as Invoker
    : localInvoker(target as ModelApi);
}
