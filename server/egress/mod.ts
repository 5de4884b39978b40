/**
 * Outbound HTTP for effects and the LLM's web fetch: the egress guard and the
 * one guarded request function.
 *
 * @module
 */
export { blockedRange, isIpLiteral } from "./address_rules.ts";
export {
  type CheckedTarget,
  checkEgress,
  EgressBlocked,
  EgressFailure,
  type EgressPolicy,
  EgressTooLarge,
  hostAllowed,
  type Resolver,
  STRICT_POLICY,
  systemResolver,
} from "./guard.ts";
export { type EgressOptions, type EgressRequest, type EgressResponse, guardedFetch } from "./fetch.ts";
