/**
 * Server configuration: every `svc.*` key from the environment (`SVC_*`) or
 * from an optional JSON or YAML file given with `--config <file>`; the
 * environment overrides the file.
 *
 * @module
 */
import { parse as parseYaml } from "yaml";
import {
  type ConfigLookup,
  type EngineConfig,
  engineConfig,
  envName,
  readBool,
  readInt,
  readList,
  shownValue,
} from "../engine/config.ts";
import { normalizedOrigin } from "../engine/origin.ts";
import { type LlmConfig, llmConfig } from "../llm/config.ts";
import { configWarnings, ignoredKeys } from "./config_keys.ts";
import { type EffectsConfig, effectsConfig } from "./executors/config.ts";
import { SESSION_TOKEN_PREFIX } from "./pairing/pairings.ts";

/** Per-IP sliding-window rate limit (`svc.rate-limit.*`). */
export interface RateLimitConfig {
  enabled: boolean;
  /** Requests allowed per window per client address. */
  requests: number;
  windowSeconds: number;
  /** Key on the first `X-Forwarded-For` hop instead of the socket address. */
  trustForwardedFor: boolean;
}

/** Request body caps in bytes. */
export interface BodyLimits {
  /** `svc.multipart.max-file-size`: one uploaded file. */
  multipartFileBytes: number;
  /** `svc.multipart.max-request-size`: a whole multipart request. */
  multipartRequestBytes: number;
  /** `svc.http.max-body-size`: any other request body (JSON specs, mutations, snapshots). */
  otherBytes: number;
}

/** What the HTTP server reads besides the engine configuration. */
export interface ServerConfig {
  /** `svc.host`: interface to bind. */
  host: string;
  /** `svc.port`: TCP port; 0 picks a free one. */
  port: number;
  /** `svc.api.key`: the shared key; `null` is open mode. */
  apiKey: string | null;
  /** `svc.security.csp`: the Content-Security-Policy header value. */
  contentSecurityPolicy: string;
  rateLimit: RateLimitConfig;
  bodyLimits: BodyLimits;
  /** `svc.websocket.allowed-origins`: `null` means same origin only; `*` allows every origin. */
  websocketAllowedOrigins: string[] | null;
  /** `svc.websocket.max-buffered-bytes`: unsent bytes a subscriber may lag before it is dropped. */
  websocketMaxBufferedBytes: number;
  /** `svc.mcp.allowed-origins`: browser origins the `/mcp` endpoint accepts (empty: any). */
  mcpAllowedOrigins: string[];
  /** `svc.mcp.max-sessions`: MCP HTTP sessions open at once; more `initialize` calls are refused (503). */
  mcpMaxSessions: number;
  /** `svc.http.cors.allowed-origins`: pages of other origins that may call the API (empty: none). */
  corsAllowedOrigins: string[];
  /** `svc.http.access-log`: one log line per request (credentials redacted). */
  accessLog: boolean;
  /** `svc.audit.signing-key`: Ed25519 key (base64 seed or PKCS #8) signing audit records; never logged. */
  auditSigningKey: string | null;
  /**
   * `svc.audit.accept-unsigned-heads`: hashes of unsigned chain heads an operator has checked, which
   * writes may sign over (server/unsigned_head_guard.ts).
   */
  auditAcceptUnsignedHeads: string[];
  /**
   * `svc.audit.retired-public-keys`: base64 Ed25519 public keys of earlier signing keys, whose
   * signatures still verify (a replaced `svc.audit.signing-key`).
   */
  auditRetiredPublicKeys: string[];
  /** `svc.pairing.*`: browser pairing (README "Browser pairing"). */
  pairing: { enabled: boolean; expiresInSeconds: number };
}

/** Everything a server process is configured with. */
export interface LoadedConfig {
  /** Looks up any `svc.*` key (environment first, then the config file). */
  lookup: ConfigLookup;
  server: ServerConfig;
  engine: EngineConfig;
  /** `svc.llm.*`: LLM generation. */
  llm: LlmConfig;
  /** `svc.effects.*`: how effects reach out. */
  effects: EffectsConfig;
  /** Where the configuration came from, for the startup line. */
  source: string;
  /** Unknown keys and keys set but ignored, one line each (to log at startup). */
  warnings: string[];
}

const MIB = 1024 * 1024;

/** The defaults of SPEC.md "Limits" and of the server keys. */
export const SERVER_DEFAULTS = Object.freeze({
  /** With an API key; open mode binds {@link SERVER_DEFAULTS.openHost} unless `svc.host` says otherwise. */
  host: "0.0.0.0",
  openHost: "127.0.0.1",
  port: 8080,
  contentSecurityPolicy: "default-src 'none'; frame-ancestors 'none'",
  rateLimitRequests: 100,
  rateLimitWindowSeconds: 60,
  pairingExpiresInSeconds: 600,
  multipartFileBytes: 50 * MIB,
  multipartRequestBytes: 55 * MIB,
  otherBodyBytes: 10 * MIB,
  websocketMaxBufferedBytes: MIB,
  mcpMaxSessions: 1000,
});

const SIZE = /^(\d+)\s*(B|KB|MB|GB)?$/i;
const SIZE_UNITS: Record<string, number> = { B: 1, KB: 1024, MB: MIB, GB: 1024 * MIB };

/** Reads a byte size: a plain integer or `<n>KB|MB|GB` (binary units, as Spring reads them). */
export function readSize(lookup: ConfigLookup, key: string, fallback: number): number {
  const raw = lookup(key)?.trim();
  if (raw === undefined || raw === "") return fallback;
  const match = SIZE.exec(raw);
  if (!match) {
    throw new Error(
      `Configuration ${key} (${envName(key)}) must be a size such as 10485760 or 10MB, got ${
        shownValue(raw)
      }`,
    );
  }
  const bytes = Number(match[1]) * SIZE_UNITS[(match[2] ?? "B").toUpperCase()];
  if (bytes < 1) {
    throw new Error(`Configuration ${key} (${envName(key)}) must be at least 1 byte, got ${shownValue(raw)}`);
  }
  return bytes;
}

/**
 * `scheme://host[:port]`, a trailing slash allowed (what an operator copies
 * from the address bar); no `user@`: an Origin header never carries one.
 */
const ORIGIN = /^[a-z][a-z\d+.-]*:\/\/[^/?#\s@]+\/?$/i;

/**
 * Reads a comma list of origins (`*`, or `scheme://host[:port]`), each
 * written as a browser's `Origin` header has it (`https://app.example.com`:
 * lower case, no slash, no default port), so an exact comparison finds it.
 * An entry that is no origin (a path, no scheme, a JSON array) could never
 * match: it aborts startup naming the key.
 */
export function readOrigins(lookup: ConfigLookup, key: string): string[] | null {
  return readList(lookup, key)?.map((entry) => {
    if (entry === "*") return entry;
    if (!ORIGIN.test(entry)) {
      throw new Error(
        `Configuration ${key} (${envName(key)}) lists ${shownValue(entry)}, which is not an origin: ` +
          "write scheme://host[:port] (e.g. https://app.example.com) or *",
      );
    }
    return normalizedOrigin(entry);
  }) ?? null;
}

/** An audit record's hash as the trail shows it: hex SHA-256, lower case (engine/audit/chain.ts). */
const AUDIT_HASH = /^[0-9a-f]{64}$/;

/**
 * Reads a comma list of audit head hashes: an entry that is no hash (a
 * sequence number, a truncated or upper-cased copy) could never match a head,
 * and the write it was meant to allow would stay refused, so it aborts startup
 * naming the key.
 */
function readHeadHashes(lookup: ConfigLookup, key: string): string[] {
  return readCheckedList(
    lookup,
    key,
    (entry) => AUDIT_HASH.test(entry),
    "an audit head hash: write the 64 lowercase hex characters of the head's hash as the audit trail shows it",
  );
}

/** Whether `entry` is base64 of 32 bytes, as an Ed25519 public key is. */
function isPublicKey(entry: string): boolean {
  try {
    return atob(entry).length === 32;
  } catch {
    return false;
  }
}

/** A comma list whose every entry `fits`; otherwise startup aborts naming the entry and what `expected` says. */
function readCheckedList(
  lookup: ConfigLookup,
  key: string,
  fits: (entry: string) => boolean,
  expected: string,
): string[] {
  const entries = readList(lookup, key) ?? [];
  const bad = entries.find((entry) => !fits(entry));
  if (bad !== undefined) {
    throw new Error(
      `Configuration ${key} (${envName(key)}) lists ${shownValue(bad)}, which is not ${expected}`,
    );
  }
  return entries;
}

/**
 * Reads a key sent as a response header: a value no header can carry (a line
 * break, a control character, text beyond Latin-1) would fail every response,
 * so it aborts startup naming the key.
 */
function readHeaderValue(lookup: ConfigLookup, key: string, fallback: string): string {
  const value = lookup(key)?.trim() || fallback;
  try {
    new Headers({ "x-check": value });
  } catch {
    throw new Error(
      `Configuration ${key} (${envName(key)}) must be one line of header text: ` +
        "no line breaks or control characters, no characters beyond Latin-1",
    );
  }
  return value;
}

function readPositive(lookup: ConfigLookup, key: string, fallback: number): number {
  const value = readInt(lookup, key, fallback);
  if (value < 1) throw new Error(`Configuration ${key} (${envName(key)}) must be at least 1, got ${value}`);
  return value;
}

/** Builds the server configuration from a key lookup. */
export function serverConfig(lookup: ConfigLookup): ServerConfig {
  const port = readInt(lookup, "svc.port", SERVER_DEFAULTS.port);
  if (port < 0 || port > 65535) {
    throw new Error(`Configuration svc.port (SVC_PORT) must be 0..65535, got ${port}`);
  }
  const apiKey = lookup("svc.api.key")?.trim() ?? "";
  // The key itself is never echoed: messages name only the setting.
  if (/\s/.test(apiKey)) {
    throw new Error("Configuration svc.api.key (SVC_API_KEY) must not contain whitespace");
  }
  // An Authorization header carries Latin-1 bytes, never UTF-8 text: any other key could never match.
  if (!/^[\x21-\x7e]*$/.test(apiKey)) {
    throw new Error(
      "Configuration svc.api.key (SVC_API_KEY) must be printable ASCII (letters, digits, punctuation): " +
        "an Authorization header cannot carry other characters",
    );
  }
  // The auth gate reads such a token as a pairing session's, so the key would never be compared.
  if (apiKey.startsWith(SESSION_TOKEN_PREFIX)) {
    throw new Error(
      `Configuration svc.api.key (SVC_API_KEY) must not start with '${SESSION_TOKEN_PREFIX}': ` +
        "that prefix marks pairing session tokens",
    );
  }
  return {
    // Open mode is for development: it listens on loopback unless told otherwise.
    host: lookup("svc.host")?.trim() || (apiKey === "" ? SERVER_DEFAULTS.openHost : SERVER_DEFAULTS.host),
    port,
    apiKey: apiKey === "" ? null : apiKey,
    contentSecurityPolicy: readHeaderValue(lookup, "svc.security.csp", SERVER_DEFAULTS.contentSecurityPolicy),
    rateLimit: {
      enabled: readBool(lookup, "svc.rate-limit.enabled", false),
      requests: readPositive(lookup, "svc.rate-limit.requests", SERVER_DEFAULTS.rateLimitRequests),
      windowSeconds: readPositive(
        lookup,
        "svc.rate-limit.window-seconds",
        SERVER_DEFAULTS.rateLimitWindowSeconds,
      ),
      trustForwardedFor: readBool(lookup, "svc.rate-limit.trust-forwarded-for", false),
    },
    bodyLimits: {
      multipartFileBytes: readSize(lookup, "svc.multipart.max-file-size", SERVER_DEFAULTS.multipartFileBytes),
      multipartRequestBytes: readSize(
        lookup,
        "svc.multipart.max-request-size",
        SERVER_DEFAULTS.multipartRequestBytes,
      ),
      otherBytes: readSize(lookup, "svc.http.max-body-size", SERVER_DEFAULTS.otherBodyBytes),
    },
    websocketAllowedOrigins: readOrigins(lookup, "svc.websocket.allowed-origins"),
    websocketMaxBufferedBytes: readSize(
      lookup,
      "svc.websocket.max-buffered-bytes",
      SERVER_DEFAULTS.websocketMaxBufferedBytes,
    ),
    mcpAllowedOrigins: readOrigins(lookup, "svc.mcp.allowed-origins") ?? [],
    mcpMaxSessions: readPositive(lookup, "svc.mcp.max-sessions", SERVER_DEFAULTS.mcpMaxSessions),
    corsAllowedOrigins: readOrigins(lookup, "svc.http.cors.allowed-origins") ?? [],
    accessLog: readBool(lookup, "svc.http.access-log", false),
    auditSigningKey: lookup("svc.audit.signing-key")?.trim() || null,
    auditAcceptUnsignedHeads: readHeadHashes(lookup, "svc.audit.accept-unsigned-heads"),
    auditRetiredPublicKeys: readCheckedList(
      lookup,
      "svc.audit.retired-public-keys",
      isPublicKey,
      "a 32-byte Ed25519 public key in base64: list the public key the server logged at startup " +
        "while it signed with the earlier svc.audit.signing-key",
    ),
    pairing: {
      enabled: readBool(lookup, "svc.pairing.enabled", true),
      expiresInSeconds: readPositive(
        lookup,
        "svc.pairing.expires-in-seconds",
        SERVER_DEFAULTS.pairingExpiresInSeconds,
      ),
    },
  };
}

/**
 * Server keys set while the switch they depend on is off, one warning each:
 * `SVC_RATE_LIMIT_REQUESTS=50` without `svc.rate-limit.enabled=true` limited
 * nothing, saying nothing.
 */
export function inertServerKeys(lookup: ConfigLookup, server: ServerConfig): string[] {
  return [
    ...ignoredKeys(
      lookup,
      ["svc.rate-limit.requests", "svc.rate-limit.window-seconds", "svc.rate-limit.trust-forwarded-for"],
      server.rateLimit.enabled,
      "svc.rate-limit.enabled is not true",
    ),
    ...ignoredKeys(
      lookup,
      ["svc.pairing.expires-in-seconds"],
      server.pairing.enabled,
      "svc.pairing.enabled is false",
    ),
    ...ignoredKeys(
      lookup,
      ["svc.audit.accept-unsigned-heads"],
      server.auditSigningKey !== null,
      "without svc.audit.signing-key no write signs over a head",
    ),
    ...ignoredKeys(
      lookup,
      ["svc.audit.retired-public-keys"],
      server.auditSigningKey !== null,
      "without svc.audit.signing-key no signature is checked",
    ),
  ];
}

/**
 * Flattens a parsed config file into `svc.*` keys. Nested maps
 * (`svc: {rate-limit: {enabled: true}}`) and dotted keys (`svc.rate-limit.enabled: true`)
 * both work; lists of scalars become comma-separated values, lists of
 * objects (`svc.composition.repositories`) a JSON array.
 */
export function flattenConfig(document: unknown, file: string): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (value: unknown, key: string) => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) {
      // A list of scalars is comma-separated; a list of entries (repositories) stays JSON.
      const entries = value.some((item) => item !== null && typeof item === "object");
      out.set(key, entries ? JSON.stringify(value) : value.map(String).join(","));
    } else if (typeof value === "object") {
      for (const [name, child] of Object.entries(value)) visit(child, key ? `${key}.${name}` : name);
    } else {
      if (!key.startsWith("svc.")) throw new Error(`Config file ${file}: key '${key}' is not an svc.* key`);
      out.set(key, String(value));
    }
  };
  if (document === null || document === undefined) return out;
  if (typeof document !== "object" || Array.isArray(document)) {
    throw new Error(`Config file ${file} must hold a mapping of svc.* keys`);
  }
  visit(document, "");
  return out;
}

/** Reads and parses a JSON (`.json`) or YAML config file. */
export async function readConfigFile(file: string): Promise<Map<string, string>> {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    throw new Error(`Config file ${file} cannot be read: ${(err as Error).message}`);
  }
  let document: unknown;
  try {
    document = file.toLowerCase().endsWith(".json") ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new Error(
      `Config file ${file} is not valid ${file.endsWith(".json") ? "JSON" : "YAML"}: ${
        (err as Error).message
      }`,
    );
  }
  return flattenConfig(document, file);
}

/** The `--config <file>` (or `--config=<file>`) argument, if given. */
export function configFileArg(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--config") {
      const file = args[i + 1];
      if (!file || file.startsWith("--")) throw new Error("--config needs a file name");
      return file;
    }
    if (args[i].startsWith("--config=")) return args[i].slice("--config=".length);
  }
  return undefined;
}

/** The process environment. */
const processEnv = (name: string): string | undefined => Deno.env.get(name);

/**
 * Loads the configuration: `--config <file>` when given, then `SVC_*`
 * environment variables on top. Throws a readable error on a malformed value;
 * unknown keys are reported in `warnings` (an error in strict mode).
 */
export async function loadConfig(
  args: readonly string[],
  env: (name: string) => string | undefined = processEnv,
  envNames?: readonly string[],
): Promise<LoadedConfig> {
  const file = configFileArg(args);
  const fromFile = file ? await readConfigFile(file) : new Map<string, string>();
  const lookup: ConfigLookup = (key) => env(envName(key)) ?? fromFile.get(key);
  // The variables to check: given, or the process's own when reading the process environment.
  const names = envNames ?? (env === processEnv ? Object.keys(Deno.env.toObject()) : []);
  const warnings = configWarnings(args, lookup, names, [...fromFile.keys()]);
  const server = serverConfig(lookup);
  return {
    lookup,
    server,
    engine: engineConfig(lookup),
    effects: effectsConfig(lookup),
    llm: llmConfig(lookup),
    source: file ? `${file} + environment` : "environment",
    warnings: [...warnings, ...inertServerKeys(lookup, server)],
  };
}
