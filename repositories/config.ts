/**
 * `svc.composition.repositories` (SPEC.md "Configuration"): the repositories
 * after the implicit local one, in resolution order. The value is a JSON array
 * (in a config file, a YAML or JSON list) of entries
 * `{id, transport, repo-class?, locator, credential?, trusted?, egressProfile?, lookupTimeoutMs?,
 * openTimeoutMs?}`:
 *
 * - `transport` `http`: `locator` is another server's base URL, `credential`
 *   its API key (sent as a bearer token);
 * - `transport` `mcp`: `locator` is a command (a string split at blanks, with
 *   quotes, or an array of arguments) started as a child speaking MCP over
 *   stdio; `credential` reaches it as `SVC_API_KEY`;
 * - `repo-class` `local` or `web`, inferred `web` for both transports;
 * - `lookupTimeoutMs` bounds a spec lookup (a repository silent longer is one
 *   that did not answer; default 5 000 for http, the MCP client's 60 000 for
 *   mcp), `openTimeoutMs` an http watch's feed socket opening (default
 *   10 000): whole milliseconds up to {@link MAX_TIMEOUT_MS};
 * - `trusted` and `egressProfile` are accepted and reserved.
 *
 * An entry with another transport is skipped with a warning (it may name a
 * transport a later release adds); any other mistake stops the start.
 *
 * @module
 */
import type { RepositoryClass } from "../engine/composition/repository.ts";

/** One configured repository. */
export interface RepositoryConfig {
  id: string;
  transport: "http" | "mcp";
  repoClass: RepositoryClass;
  /** http: the base URL; mcp: the command and its arguments. */
  locator: string | string[];
  credential: string | null;
  trusted: boolean;
  /** How long a spec lookup may take before the repository counts as not answering (ms); unset: the default. */
  lookupTimeoutMs?: number;
  /** http: how long a watch's feed socket may take to open (ms); unset: the default. */
  openTimeoutMs?: number;
}

/** The largest timeout an entry may set (ms): five minutes; a longer wait is a mistake, not a setting. */
export const MAX_TIMEOUT_MS = 300_000;

/** The key this module reads. */
export const REPOSITORY_KEYS: readonly string[] = ["svc.composition.repositories"];

const KEY = "svc.composition.repositories (SVC_COMPOSITION_REPOSITORIES)";
const ID = /^[A-Za-z][A-Za-z0-9_.-]*$/;
const MEMBERS = new Set([
  "id",
  "transport",
  "repo-class",
  "locator",
  "credential",
  "trusted",
  "egressProfile",
  "lookupTimeoutMs",
  "openTimeoutMs",
]);

/** Parses the configured value; throws a message naming the key and the entry on any mistake. */
export function parseRepositories(
  raw: string | undefined,
  warn: (message: string) => void,
): RepositoryConfig[] {
  if (raw === undefined || raw.trim() === "") return [];
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new Error(`Configuration ${KEY} must be a JSON array of repositories: ${(err as Error).message}`);
  }
  if (!Array.isArray(value)) throw new Error(`Configuration ${KEY} must be a JSON array of repositories`);
  const seen = new Set<string>(["local"]);
  const out: RepositoryConfig[] = [];
  value.forEach((entry, index) => {
    const at = `Configuration ${KEY}, entry ${index}`;
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      throw new Error(`${at} must be an object {id, transport, locator}`);
    }
    const e = entry as Record<string, unknown>;
    const unknown = Object.keys(e).filter((k) => !MEMBERS.has(k));
    if (unknown.length) {
      throw new Error(`${at}: unknown member(s) ${unknown.map((k) => `'${k}'`).join(", ")}`);
    }
    if (typeof e.id !== "string" || !ID.test(e.id)) {
      throw new Error(`${at}: id must be a name (a letter, then letters, digits, '.', '-' or '_')`);
    }
    if (seen.has(e.id)) {
      throw new Error(`${at}: id '${e.id}' is ${e.id === "local" ? "reserved" : "repeated"}`);
    }
    seen.add(e.id);
    // Missing, it is a mistake in the entry (it read "transport 'undefined' is not supported"), not another transport.
    if (e.transport === undefined) throw new Error(`${at} ('${e.id}'): transport is required: http or mcp`);
    if (e.transport !== "http" && e.transport !== "mcp") {
      warn(`${at} ('${e.id}'): transport '${String(e.transport)}' is not supported (http, mcp); skipped`);
      return;
    }
    const repoClass = e["repo-class"] ?? "web";
    if (repoClass !== "local" && repoClass !== "web") {
      throw new Error(`${at} ('${e.id}'): repo-class must be 'local' or 'web'`);
    }
    if (e.credential !== undefined && e.credential !== null && typeof e.credential !== "string") {
      throw new Error(`${at} ('${e.id}'): credential must be a string`);
    }
    if (e.trusted !== undefined && typeof e.trusted !== "boolean") {
      throw new Error(`${at} ('${e.id}'): trusted must be true or false`);
    }
    if (e.egressProfile !== undefined && typeof e.egressProfile !== "string") {
      throw new Error(`${at} ('${e.id}'): egressProfile must be a string`);
    }
    if (e.openTimeoutMs !== undefined && e.transport !== "http") {
      throw new Error(
        `${at} ('${e.id}'): openTimeoutMs applies to http repositories only (their watch's feed)`,
      );
    }
    out.push({
      id: e.id,
      transport: e.transport,
      repoClass,
      locator: e.transport === "http" ? httpLocator(e.locator, at) : commandLocator(e.locator, at),
      credential: typeof e.credential === "string" && e.credential !== "" ? e.credential : null,
      trusted: e.trusted === true,
      ...timeout(e, "lookupTimeoutMs", at),
      ...timeout(e, "openTimeoutMs", at),
    });
  });
  return out;
}

/** `{[key]: ms}` when the entry sets `key` to a whole number of milliseconds in range; `{}` when unset. */
function timeout(e: Record<string, unknown>, key: "lookupTimeoutMs" | "openTimeoutMs", at: string) {
  const ms = e[key];
  if (ms === undefined) return {};
  if (!Number.isInteger(ms) || (ms as number) < 1 || (ms as number) > MAX_TIMEOUT_MS) {
    throw new Error(
      `${at} ('${e.id}'): ${key} must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, got ${
        JSON.stringify(ms)
      }`,
    );
  }
  return { [key]: ms as number };
}

function httpLocator(locator: unknown, at: string): string {
  if (typeof locator === "string") {
    try {
      const url = new URL(locator);
      if (url.protocol === "http:" || url.protocol === "https:") return locator;
    } catch {
      // Worded below.
    }
  }
  throw new Error(`${at}: an http locator is the server's base URL (http://host:port)`);
}

function commandLocator(locator: unknown, at: string): string[] {
  const argv = typeof locator === "string"
    ? splitCommand(locator)
    : Array.isArray(locator) && locator.every((a) => typeof a === "string")
    ? locator as string[]
    : null;
  if (!argv?.length || argv[0] === "") {
    throw new Error(`${at}: an mcp locator is a command (a string, or an array of arguments)`);
  }
  return argv;
}

/** Splits a command line at blanks; single or double quotes keep blanks inside an argument. */
export function splitCommand(line: string): string[] | null {
  const args: string[] = [];
  let current = "";
  let quote: string | null = null;
  let started = false;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = null;
      else current += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      started = true;
    } else if (/\s/.test(ch)) {
      if (started) args.push(current);
      current = "";
      started = false;
    } else {
      current += ch;
      started = true;
    }
  }
  if (quote) return null;
  if (started) args.push(current);
  return args;
}
