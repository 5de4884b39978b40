/**
 * Turns a server's non-2xx answer back into the {@link ServiceError} the
 * server's service threw, so a remote caller sees what an embedded one sees:
 * the same kind, the same message and the same structured body.
 *
 * The server sends two shapes (server/problem.ts, by {@link STATUS_OF_KIND}): a generic RFC 7807 document
 * whose `detail` is the message, or a structured body (`{error, violations}`,
 * `{error, expected, actual}`, …) without the message. For the structured ones
 * the message is rebuilt by the engine's own factory for that body, so it is
 * the exact text the server's service produced.
 *
 * @module
 */
import {
  type ConstraintViolation,
  constraintViolation,
  type Finding,
  kindOfStatus,
  type SchemaViolation,
  schemaViolation,
  ServiceError,
  specInvalid,
  versionConflict,
} from "../errors.ts";
import { isObject, type Json } from "../json/value.ts";
import { evolutionInvalid, type GenerationFinding, generationInvalid } from "../service/generation.ts";
import { notLoaded } from "../service/unloaded.ts";
import { evolutionRefused, invalidEvolution, stateStranded } from "../evolve/refusals.ts";

// deno-lint-ignore no-explicit-any
type Body = Record<string, any>;

/** The engine factory of each structured body, keyed by its `error` member. */
const STRUCTURED: Readonly<Record<string, (body: Body) => ServiceError>> = {
  "Constraint violation": (b) => constraintViolation(b.violations as ConstraintViolation[]),
  "Schema violation": (b) => schemaViolation(b.violations as SchemaViolation[]),
  "Spec validation failed": (b) => specInvalid(b.errors as Finding[], (b.warnings ?? []) as Finding[]),
  "Version conflict": (b) => versionConflict(String(b.expected), String(b.actual)),
  "Model not loaded": (b) => notLoaded(String(b.modelId), b.errors as Finding[]),
  "Invalid evolution": (b) => invalidEvolution(b.errors as Finding[]),
  "Evolution refused": (b) => evolutionRefused(b.errors as Finding[]),
  "State incompatible": (b) => stateStranded(b.violations as SchemaViolation[]),
};

/** A structured body rebuilt by its factory; `null` when unknown or malformed. */
function fromStructured(body: Body): ServiceError | null {
  const factory = STRUCTURED[body.error];
  if (!factory) return null;
  try {
    return factory(body);
  } catch {
    // A body that does not have the documented members: fall back to its title.
    return null;
  }
}

/**
 * The service error of an answer with `status` and body `text`. The body, when
 * it is a structured one (it has an `error` member), is kept verbatim.
 */
export function errorFromResponse(
  status: number,
  statusText: string,
  text: string,
): ServiceError {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isObject(body)) {
    const object = body as Body;
    // A generation that produced nothing valid: {valid:false, errors|error, rawResponse}.
    if (object.valid === false) {
      const raw = typeof object.rawResponse === "string" ? object.rawResponse : null;
      if (Array.isArray(object.errors)) return generationInvalid(object.errors as GenerationFinding[], raw);
      if (typeof object.error === "string") return evolutionInvalid(object.error, raw);
    }
    if (typeof object.error === "string") {
      const rebuilt = fromStructured(object);
      // A foreign body's `detail` says what its `error` (a title) does not; the message is cut (errors.ts).
      const detail = typeof object.detail === "string" ? `: ${object.detail}` : "";
      return new ServiceError(
        rebuilt?.kind ?? kindOfStatus(status),
        rebuilt?.message ?? object.error + detail,
        object as Record<string, Json>,
      );
    }
    if (typeof object.detail === "string") return new ServiceError(kindOfStatus(status), object.detail);
  }
  // Not one of ours (a proxy's page, an empty body): say what came back.
  const excerpt = text.trim().slice(0, 200);
  const head = `HTTP ${status}${statusText ? ` ${statusText}` : ""}`;
  return new ServiceError(kindOfStatus(status), excerpt ? `${head}: ${excerpt}` : head);
}
