/**
 * Typed service errors. The engine throws these; each surface maps the `kind`
 * to its own status (REST status code, console `ok:false`, MCP `isError`).
 *
 * @module
 */
import type { Json } from "./json/value.ts";
import { shortMessage } from "./quoted.ts";

/** Error categories every surface knows how to map. */
export type ErrorKind =
  | "bad_request"
  | "not_found"
  | "conflict"
  | "constraint_violation"
  | "schema_violation"
  | "validation_failed"
  | "version_conflict"
  | "too_large"
  | "unsupported_media_type"
  | "too_many"
  | "forbidden"
  | "not_allowed"
  | "unauthorized"
  | "internal"
  | "bad_gateway"
  | "unavailable";

/** The HTTP status of each kind (SPEC.md "Errors"): the server answers with it, the remote client reads it back. */
export const STATUS_OF_KIND: Readonly<Record<ErrorKind, number>> = Object.freeze({
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  not_allowed: 405,
  conflict: 409,
  constraint_violation: 409,
  version_conflict: 409,
  too_large: 413,
  unsupported_media_type: 415,
  validation_failed: 422,
  schema_violation: 422,
  too_many: 429,
  internal: 500,
  bad_gateway: 502,
  unavailable: 503,
});

/**
 * The kind of a status without a structured body: the first kind mapped to
 * it ({@link STATUS_OF_KIND} read backwards); other 4xx are bad requests,
 * anything else internal.
 */
export function kindOfStatus(status: number): ErrorKind {
  const kind = (Object.keys(STATUS_OF_KIND) as ErrorKind[]).find((k) => STATUS_OF_KIND[k] === status);
  return kind ?? (status >= 400 && status < 500 ? "bad_request" : "internal");
}

/** A constraint that failed, as reported in rollback bodies and `flaggedConstraints`. */
export interface ConstraintViolation {
  constraintId: string;
  message: string;
  policy: "rollback" | "flag";
}

/** A schema check that failed before any write. */
export interface SchemaViolation {
  path: string;
  keyword: string;
  message: string;
}

/** A spec validation finding. */
export interface Finding {
  location: string;
  message: string;
}

/**
 * `items` (violations, findings) with each string member (where: a path, a
 * location; what: a message) shortened as messages are ({@link shortMessage}):
 * built from a hostile name (100 KB, say), one would flood every surface.
 */
export function shortened<T extends object>(items: T[]): T[] {
  // Most lists are empty (every write's flagged constraints): no serialisation round trip for them.
  return items.length
    ? JSON.parse(JSON.stringify(items, (_, v) => typeof v == "string" ? shortMessage(v) : v))
    : items;
}

/**
 * Base class of every error the service reports to a caller. Its message is
 * {@link shortMessage}'s: one quoting a value of a document (a meta
 * derivation's 100 KB answer) is sent whole in bodies made from it (dry_run's
 * `error`, test_spec's case `error`), which no surface shortens.
 */
export class ServiceError extends Error {
  /** The category surfaces map to status codes. */
  readonly kind: ErrorKind;
  /** A structured body for surfaces that return one (rollback, schema, version conflict). */
  readonly body?: Record<string, Json>;
  /**
   * Seconds the caller should wait before trying again, when the failure knows (an upstream's `Retry-After`):
   * REST sends it as `Retry-After`. Declared only (set by hosts after construction), so it costs the bundle nothing.
   */
  declare retryAfter?: number;
  constructor(kind: ErrorKind, message: string, body?: Record<string, Json>) {
    super(shortMessage(message));
    this.name = "ServiceError";
    this.kind = kind;
    this.body = body;
  }
}

/**
 * A server (a remote, a repository) was not reached or did not answer in time (engine/operations/fetch_within.ts).
 * Told by its type, not its message (an `svc mcp --url` child relays the type as `_meta["svc/noAnswer"]`,
 * mcp/results.ts); here, below every layer that tells it.
 */
export class NoAnswerError extends ServiceError {}

/** Malformed input (400). */
export function badRequest(message: string): ServiceError {
  return new ServiceError("bad_request", message);
}

/** A failure of the store or a dependency, not a refusal: the same call may succeed later. */
export function isTransient(err: ServiceError): boolean {
  return ["internal", "unavailable", "bad_gateway", "too_many", "version_conflict"].includes(err.kind);
}

/** Unknown model, field, blob or history entry (404). */
export function notFound(message: string): ServiceError {
  return new ServiceError("not_found", message);
}

/** Duplicate id and similar conflicts (409). */
export function conflict(message: string): ServiceError {
  return new ServiceError("conflict", message);
}

/** Too many models or queued mutations (429). */
export function tooMany(message: string): ServiceError {
  return new ServiceError("too_many", message);
}

/** A blob or request over its cap (413). */
export function tooLarge(message: string): ServiceError {
  return new ServiceError("too_large", message);
}

/** A semantic validation failure without a structured body (422). */
export function unprocessable(message: string): ServiceError {
  return new ServiceError("validation_failed", message);
}

/** A dependency is not configured or not reachable, such as the LLM provider (503). */
export function unavailable(message: string): ServiceError {
  return new ServiceError("unavailable", message);
}

/** An upstream call failed, such as the LLM provider's (502). */
export function badGateway(message: string): ServiceError {
  return new ServiceError("bad_gateway", message);
}

/**
 * A rollback in one line, `Constraint violated: m` (several: `N constraints violated: [m1, m2]`);
 * `named` adds the constraints' ids before the colon, `Constraint violated (id): m`, for a text without the body.
 */
export function describeRollback(violations: ConstraintViolation[], named?: boolean): string {
  const messages = violations.map((v) => v.message);
  const ids = named ? ` (${violations.map((v) => v.constraintId).join(", ")})` : "";
  return messages.length === 1
    ? `Constraint violated${ids}: ${messages[0]}`
    : `${messages.length} constraints violated${ids}: [${messages.join(", ")}]`;
}

/** A rollback constraint failed: the whole mutation was reverted (409). */
export function constraintViolation(refused: ConstraintViolation[]): ServiceError {
  const violations = shortened(refused);
  return new ServiceError("constraint_violation", describeRollback(violations), {
    error: "Constraint violation",
    violations: violations as unknown as Json,
  });
}

/** Schema violations in one line, `path (keyword): message` each, a repeated one once. */
export function describeViolations(violations: SchemaViolation[]): string {
  return [...new Set(violations.map((v) => `${v.path} (${v.keyword}): ${v.message}`))].join("; ");
}

/** Findings in one line, `location: message` each. */
export function describeFindings(findings: Finding[]): string {
  return findings.map((f) => `${f.location}: ${f.message}`).join("; ");
}

/** A written value failed the effective schema before any write (422). */
export function schemaViolation(refused: SchemaViolation[]): ServiceError {
  const violations = shortened(refused);
  return new ServiceError("schema_violation", `Schema violation: ${describeViolations(violations)}`, {
    error: "Schema violation",
    violations: violations as unknown as Json,
  });
}

/**
 * A refusal listing findings (`{error, errors}`, and `warnings` when given),
 * `error: location: message; …` as its message: a spec's, an evolution's.
 */
export function findingsError(
  kind: ErrorKind,
  error: string,
  errors: Finding[],
  warnings?: Finding[],
): ServiceError {
  const [found, warned] = [errors, warnings].map((f) => f && shortened(f));
  return new ServiceError(kind, `${error}: ${describeFindings(found!)}`, {
    error,
    errors: found as unknown as Json,
    ...(warned && { warnings: warned as unknown as Json }),
  });
}

/** The spec (or an evolved spec) is invalid (422), with every finding. */
export function specInvalid(errors: Finding[], warnings: Finding[] = []): ServiceError {
  return findingsError("validation_failed", "Spec validation failed", errors, warnings);
}

/** `expectedVersion` did not match the live version (409). */
export function versionConflict(expected: string, actual: string): ServiceError {
  return new ServiceError(
    "version_conflict",
    `Version conflict: expected ${expected}, actual ${actual}`,
    { error: "Version conflict", expected, actual },
  );
}
