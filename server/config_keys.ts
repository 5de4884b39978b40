/**
 * The known configuration keys, and the check that finds the unknown ones:
 * an `SVC_*` environment variable or a config file key that no part of the
 * service reads is almost always a typo (`SVC_API_KEYS`, `SVC_PROT`), and a
 * typo in a security setting silently changes the posture. Each is reported
 * with the nearest known key; strict mode (`--strict-config`,
 * `svc.config.strict`) makes them an error.
 *
 * @module
 */
import { REPOSITORY_KEYS } from "../repositories/config.ts";
import { type ConfigLookup, ENGINE_KEYS, envName, readBool } from "../engine/config.ts";
import { nearestName } from "../engine/nearest.ts";
import { LLM_KEYS } from "../llm/config.ts";
import { EFFECT_KEYS } from "./executors/config.ts";
import { STORAGE_KEYS } from "./stores/keys.ts";

/** Every key `serverConfig` (config.ts) reads. */
export const SERVER_KEYS: readonly string[] = [
  "svc.port",
  "svc.host",
  "svc.api.key",
  "svc.security.csp",
  "svc.rate-limit.enabled",
  "svc.rate-limit.requests",
  "svc.rate-limit.window-seconds",
  "svc.rate-limit.trust-forwarded-for",
  "svc.multipart.max-file-size",
  "svc.multipart.max-request-size",
  "svc.http.max-body-size",
  "svc.websocket.allowed-origins",
  "svc.websocket.max-buffered-bytes",
  "svc.mcp.allowed-origins",
  "svc.mcp.max-sessions",
  "svc.http.cors.allowed-origins",
  "svc.http.access-log",
  "svc.audit.signing-key",
  "svc.audit.accept-unsigned-heads",
  "svc.audit.retired-public-keys",
  "svc.pairing.enabled",
  "svc.pairing.expires-in-seconds",
];

/** Keys of the CLI and of this check itself. */
const CLI_KEYS = ["svc.url", "svc.remote.timeout-ms", "svc.config.strict"];

/** A key nobody reads, with the nearest known one. */
export interface UnknownKey {
  /** As written: `SVC_API_KEYS`, or a file key `svc.api.keys`. */
  name: string;
  /** The nearest known name in the same form, when one is close enough. */
  nearest?: string;
}

/**
 * The `SVC_*` environment variables and file keys that are not among `known`
 * (server, engine and storage keys by default).
 */
export function unknownKeys(
  envNames: readonly string[],
  fileKeys: readonly string[],
  known: readonly string[],
): UnknownKey[] {
  const knownEnv = known.map(envName);
  return [
    ...envNames.filter((name) => name.startsWith("SVC_") && !knownEnv.includes(name))
      .map((name) => ({ name, nearest: nearestName(name, knownEnv) })),
    ...fileKeys.filter((key) => !known.includes(key)).map((key) => ({
      name: key,
      nearest: nearestName(key, known),
    })),
  ];
}

/** ` (did you mean SVC_PORT?)`, when a known key is near. */
function nearestHint(unknown: UnknownKey): string {
  return unknown.nearest ? ` (did you mean ${unknown.nearest}?)` : "";
}

/** One line per unknown key. */
export function describeUnknown(unknown: UnknownKey): string {
  return `unknown configuration ${unknown.name} is ignored${nearestHint(unknown)}`;
}

/**
 * The keys among `keys` that are set although what reads them is off (`used`
 * false), one warning each saying `why`: a value that changes nothing must
 * not pass for one that does.
 */
export function ignoredKeys(
  lookup: ConfigLookup,
  keys: readonly string[],
  used: boolean,
  why: string,
): string[] {
  return used ? [] : keys.filter((key) => lookup(key)?.trim())
    .map((key) => `${key} (${envName(key)}) is set but ignored: ${why}`);
}

/** Every key any part of the service reads. */
export const KNOWN_KEYS: readonly string[] = [
  ...SERVER_KEYS,
  ...ENGINE_KEYS,
  ...STORAGE_KEYS,
  ...LLM_KEYS,
  ...EFFECT_KEYS,
  ...CLI_KEYS,
  ...REPOSITORY_KEYS,
];

/**
 * The unknown `SVC_*` variables and file keys, one line each; with
 * `--strict-config` or `svc.config.strict` they are an error instead.
 */
export function configWarnings(
  args: readonly string[],
  lookup: ConfigLookup,
  envNames: readonly string[],
  fileKeys: readonly string[] = [],
): string[] {
  const unknown = unknownKeys(envNames, fileKeys, KNOWN_KEYS);
  const strict = args.includes("--strict-config") || readBool(lookup, "svc.config.strict", false);
  if (strict && unknown.length) {
    // One line, as every startup error is (the log escapes a line break to a literal \n), and not "ignored".
    throw new Error(
      `Unknown configuration (strict mode: --strict-config, svc.config.strict) refused: ${
        unknown.map((u) => u.name + nearestHint(u)).join("; ")
      }`,
    );
  }
  return unknown.map(describeUnknown);
}
