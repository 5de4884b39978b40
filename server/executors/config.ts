/**
 * The `svc.effects.*` keys of a host that runs effects (the server, and the
 * console and MCP processes in embedded mode).
 *
 * @module
 */
import { DEFAULT_MAX_RESPONSE_BYTES } from "../../engine/effects/http_executor.ts";
import { type ConfigLookup, readBool, readLimit, readList } from "../../engine/config.ts";
import type { EgressPolicy } from "../egress/mod.ts";

/** How a host runs effects. */
export interface EffectsConfig {
  /** `svc.effects.allow-private-ips`, `allow-insecure-http`, `allowed-hosts`. */
  egress: EgressPolicy;
  /** `svc.effects.max-response-bytes`: the largest answer a server effect folds back. */
  maxResponseBytes: number;
  /** `svc.effects.plugins`: modules of operator-installed kinds. */
  plugins: string[];
}

/** Every key {@link effectsConfig} reads (`svc.effects.kinds.enabled` is the engine's). */
export const EFFECT_KEYS: readonly string[] = [
  "svc.effects.allow-private-ips",
  "svc.effects.allow-insecure-http",
  "svc.effects.allowed-hosts",
  "svc.effects.max-response-bytes",
  "svc.effects.plugins",
];

export { DEFAULT_MAX_RESPONSE_BYTES };

/** Reads the `svc.effects.*` keys; a malformed value aborts startup naming the key. */
export function effectsConfig(lookup: ConfigLookup): EffectsConfig {
  // Plain decimal, as every integer key (engine/config.ts readInt): Number() read 1e3 and 0x10 too.
  const maxResponseBytes = readLimit(lookup, "svc.effects.max-response-bytes", DEFAULT_MAX_RESPONSE_BYTES);
  return {
    egress: {
      allowPrivateIps: readBool(lookup, "svc.effects.allow-private-ips", false),
      allowInsecureHttp: readBool(lookup, "svc.effects.allow-insecure-http", false),
      allowedHosts: readList(lookup, "svc.effects.allowed-hosts"),
    },
    maxResponseBytes,
    plugins: readList(lookup, "svc.effects.plugins") ?? [],
  };
}
