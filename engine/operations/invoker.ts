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

/** Runs operations somewhere. */
export interface Invoker {
  invoke: InvokeFn;
}

/**
 * An invoker over an in-process API. Authoring tools use `authoring`, or the
 * API's own (a {@link ModelService} shares its compiler), or a new one.
 */
export function localInvoker(api: ModelApi, authoring?: AuthoringEngine): Invoker {
  const own = authoring ?? (api as { authoring?: AuthoringEngine }).authoring;
  let created: AuthoringEngine | undefined;
  const tools = () => Promise.resolve(own ?? (created ??= localAuthoring()));
  const invoker: Invoker = {
    invoke: (op, input, options) =>
      op.kind === "api"
        ? op.run(api, input, options)
        : op.run({ invoke: invoker.invoke, authoring: tools }, input, options),
  };
  return invoker;
}

/** An invoker as given, or a local one over a {@link ModelApi}. */
export function invokerOf(target: ModelApi | Invoker): Invoker {
  return "invoke" in target && typeof target.invoke === "function"
    ? target as Invoker
    : localInvoker(target as ModelApi);
}
