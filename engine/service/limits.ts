/**
 * The checks at the door of the service: a value the store cannot keep, or
 * that every later walk would have to survive, is refused before any work.
 *
 * - a non-finite number (`1e309` parses as Infinity; JSON stores it as null): 422;
 * - nesting deeper than `svc.limits.max-depth` (a written value counts from the
 *   root of the document, so its address's depth is added, a scalar's too): 422;
 * - a write's address (a patch's `path` or `from`, a backfill's address) over
 *   1024 characters, as a spec's: 422;
 * - a spec over `svc.limits.max-spec-bytes`, a state over
 *   `svc.limits.max-state-bytes`: 413.
 *
 * The walks are iterative ({@link measureJson}) and cost what the request
 * holds, never what the stored document holds.
 *
 * @module
 */
import type { EngineConfig } from "../config.ts";
import { schemaViolation, tooLarge, unprocessable } from "../errors.ts";
import { measureJson } from "../json/measure.ts";
import { formatPath, pathOrNull } from "../json/path.ts";
import { isObject, type Json } from "../json/value.ts";
import { longAddressMessage, MAX_ID_LENGTH } from "../model/model_spec_schema.ts";

/**
 * Refuses a value nested too deep or holding a non-finite number; returns its
 * JSON bytes. `baseDepth`: the containers the value is written in
 * (its address's segments), which count too, a scalar's included.
 */
export function checkValue(config: EngineConfig, value: unknown, what: string, baseDepth = 0): number {
  const room = config.maxDepth - baseDepth;
  const measured = room < 0 ? { ok: false as const, reason: "depth" as const } : measureJson(value, room);
  if (measured.ok) return measured.bytes;
  if (measured.reason === "depth") {
    throw unprocessable(
      `${what} is nested deeper than svc.limits.max-depth (${config.maxDepth} levels)`,
    );
  }
  const where = measured.path.length ? ` at ${formatPath(measured.path)}` : "";
  throw unprocessable(`${what} holds a number JSON cannot store (NaN or Infinity)${where}`);
}

/**
 * Checks every value of a flat mutation map: a non-finite number is a schema
 * violation of its address (422 with the spec's body), depth counts from the root.
 * `what` names a value too deep by its address; `kind` an address too long.
 */
export function checkMutationValues(
  config: EngineConfig,
  mutations: Record<string, Json>,
  what = (address: string) => `The value written at ${address}`,
  kind = "mutation",
): void {
  // Every segment of an address takes two characters or more (`.a`, `[0]`) after the `$`.
  const shallow = 2 * config.maxDepth + 1;
  for (const [address, value] of Object.entries(mutations)) {
    checkAddressLength(address, `Invalid ${kind} path`);
    // A finite scalar has no depth of its own: at an address too short to pass the limit, it need not be parsed.
    if (value === null || typeof value !== "object") {
      if ((typeof value !== "number" || Number.isFinite(value)) && address.length <= shallow) continue;
    }
    const parsed = pathOrNull(address);
    const baseDepth = parsed?.length ?? 0;
    const measured = measureJson(value, config.maxDepth - baseDepth);
    if (measured.ok && baseDepth <= config.maxDepth) continue;
    if (!measured.ok && measured.reason === "non-finite") {
      const path = parsed ? formatPath([...parsed, ...measured.path]) : address;
      throw schemaViolation([{
        path,
        keyword: "type",
        message: "must be a finite number (NaN and Infinity cannot be stored)",
      }]);
    }
    checkValue(config, value, what(address), baseDepth);
  }
}

/**
 * What a member of a request envelope holds: a `document` (counted from the
 * document root), `writes` (a map of address to value, each counted from its
 * address, as a write) or something `unread` (not walked at all: what is never
 * read or kept costs nothing, however large; its parser checks its shape).
 */
export type EnvelopeMember = "document" | "writes" | "unread";

/**
 * Checks a request that carries documents inside an envelope (a snapshot, an
 * evolution) where each lands, rather than one level deeper than it is: the
 * `members` named hold what they say, any other member is measured as the
 * envelope's. Returns the JSON bytes of each `document` member.
 * A malformed envelope passes for its parser to refuse in its own words.
 */
export function checkEnvelope(
  config: EngineConfig,
  envelope: unknown,
  what: string,
  members: Readonly<Record<string, EnvelopeMember>>,
): Map<string, number> {
  const bytes = new Map<string, number>();
  if (!isObject(envelope)) {
    checkValue(config, envelope, what);
    return bytes;
  }
  for (const [name, value] of Object.entries(envelope)) {
    const holds = Object.hasOwn(members, name) ? members[name] : null;
    const label = `${what}'s ${name}`;
    if (holds === "unread") continue;
    if (holds === "document") bytes.set(name, checkValue(config, value, label));
    else if (holds === "writes" && isObject(value)) {
      // Named as what it is: a backfill's address is no mutation's.
      checkMutationValues(config, value, (address) => `${label} value at ${address}`, name);
    } else checkValue(config, value, what, 1);
  }
  return bytes;
}

/**
 * Checks every value of a JSON Patch; depth counts from the root (the
 * pointer's segments) where an operation writes. What a `copy` or `move`
 * writes is in the document: the patch step measures it.
 */
export function checkPatchValues(config: EngineConfig, ops: readonly unknown[]): void {
  ops.forEach((op, index) => {
    if (typeof op !== "object" || op === null) return;
    const { op: name, path, from, value } = op as {
      op?: unknown;
      path?: unknown;
      from?: unknown;
      value?: unknown;
    };
    // A move's or copy's `from` is named in the audit record as its `path` is.
    for (const [key, at] of [["path", path], ["from", from]]) {
      if (typeof at === "string") checkAddressLength(at, `Patch operation ${index}'s ${key}`);
    }
    const writes = name === "add" || name === "replace" || name === "copy" || name === "move";
    const baseDepth = writes && typeof path === "string" ? path.split("/").length - 1 : 0;
    checkValue(config, value ?? null, `Patch operation ${index}'s value`, baseDepth);
  });
}

/** Refuses an address longer than a spec's may be (every write's result, traces and audit record name it). */
function checkAddressLength(address: string, what: string): void {
  if (address.length > MAX_ID_LENGTH) throw unprocessable(`${what}: ${longAddressMessage(address)}`);
}

/** Refuses a spec deeper than the depth limit, with a non-finite number, or over `svc.limits.max-spec-bytes`. */
export function checkSpecSize(config: EngineConfig, spec: unknown, what = "The spec"): void {
  const bytes = checkValue(config, spec, what);
  if (bytes > config.maxSpecBytes) {
    throw tooLarge(
      `${what} is about ${bytes} bytes, over svc.limits.max-spec-bytes (${config.maxSpecBytes})`,
    );
  }
}

/** Refuses a whole state over `svc.limits.max-state-bytes` (creation, evolution, restore). */
export function checkStateBytes(config: EngineConfig, bytes: number, modelId: string): void {
  if (bytes > config.maxStateBytes) {
    throw tooLarge(
      `State of model '${modelId}' would be about ${bytes} bytes, over svc.limits.max-state-bytes ` +
        `(${config.maxStateBytes})`,
    );
  }
}
