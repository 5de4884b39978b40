/**
 * Tool results (SPEC.md "MCP tools", "Errors"): a success is a pretty-printed
 * JSON text block, plus `structuredContent` when the value is an object; a
 * failure is a result with `isError: true` carrying the service's structured
 * body (rollback, schema violation, version conflict) or `{error: <message>}`;
 * a result too large for an agent's context is withheld with a hint, except
 * a committed write's, which is cut down instead ({@link committedSuccess}). A
 * failure also names the error's kind in `_meta` ({@link ERROR_KIND_META}), so
 * an MCP client such as the `mcp` repository transport need not guess it from
 * the message, and whether the service it called did not answer
 * ({@link NO_ANSWER_META}).
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type ErrorKind, NoAnswerError, ServiceError } from "../engine/errors.ts";
import { isObject } from "../engine/json/value.ts";
import { shortMessage } from "../engine/quoted.ts";

/** Pretty-printed results longer than this many characters are withheld ("about 50 KB"). */
export const RESULT_LIMIT_CHARS = 50 * 1024;

/** The `_meta` key of a failed tool result that carries the error's kind (`not_found`, `too_many`, …). */
export const ERROR_KIND_META = "svc/errorKind";

/**
 * The `_meta` key (`true`) of a failed tool result whose error is that the server an `svc mcp --url` child
 * calls was not reached or did not answer in time ({@link NoAnswerError}): an answer of no one.
 */
export const NO_ANSWER_META = "svc/noAnswer";

// Said of a tool that declares no hint: naming arguments it does not take would send an agent astray.
const GENERIC_HINT = "no argument of this tool narrows its result";

/**
 * A successful tool result for `value` (`undefined` reads as `null`); one
 * longer than `limitChars` is withheld with `hint` (how to ask for less).
 */
export function toolSuccess(value: unknown, hint?: string, limitChars = RESULT_LIMIT_CHARS): CallToolResult {
  const json = value === undefined ? null : value;
  const text = JSON.stringify(json, null, 2);
  if (text.length > limitChars) return tooLarge(text.length, hint, limitChars);
  return isObject(json)
    ? { content: [{ type: "text", text }], structuredContent: json, isError: false }
    : { content: [{ type: "text", text }], isError: false };
}

/**
 * A successful result of a tool that changed something. One too large is not
 * withheld, as the change happened (an agent retrying would apply it twice):
 * `traces` go first, then the largest members are halved (lists) or dropped
 * until it fits, with `truncated: true`, the counts left out under `omitted`
 * and a `note`.
 */
export function committedSuccess(value: unknown): CallToolResult {
  if (!isObject(value) || JSON.stringify(value, null, 2).length <= RESULT_LIMIT_CHARS) {
    return toolSuccess(value);
  }
  const kept: Record<string, unknown> = { ...value };
  const omitted: Record<string, number> = {};
  const omit = (key: string, keep: number) => {
    const member = kept[key];
    const size = Array.isArray(member) ? member.length : isObject(member) ? Object.keys(member).length : 1;
    omitted[key] = (omitted[key] ?? 0) + size - keep;
    if (keep > 0) kept[key] = (member as unknown[]).slice(0, keep);
    else delete kept[key];
  };
  const cut = () => ({
    ...kept,
    truncated: true,
    omitted,
    note: `the write committed; ${
      Object.entries(omitted).map(([key, n]) => `${n} ${key}`).join(", ")
    } not listed; read the state (get_state, get_field) or explain for them`,
  });
  if ("traces" in kept) omit("traces", 0);
  while (JSON.stringify(cut(), null, 2).length > RESULT_LIMIT_CHARS) {
    const [key, member] = Object.entries(kept)
      .reduce((a, b) => JSON.stringify(b[1]).length > JSON.stringify(a[1]).length ? b : a);
    omit(key, Array.isArray(member) ? Math.floor(member.length / 2) : 0);
  }
  return toolSuccess(cut());
}

/** The body a failure carries: the service's structured body, or `{error: <message>}` (huge input quoted short). */
export function failureBody(err: unknown): Record<string, unknown> {
  if (err instanceof ServiceError && err.body) return { ...err.body };
  return { error: shortMessage(err instanceof Error ? err.message : String(err)) };
}

/** A failed tool result (`isError: true`) carrying the body of a thrown error (withheld when too large). */
export function toolFailure(err: unknown): CallToolResult {
  const body = failureBody(err);
  const text = JSON.stringify(body, null, 2);
  const kind = err instanceof ServiceError ? err.kind : "internal";
  if (text.length > RESULT_LIMIT_CHARS) return tooLarge(text.length);
  const result = failure(body, kind, text);
  if (err instanceof NoAnswerError) result._meta![NO_ANSWER_META] = true;
  return result;
}

function failure(
  body: Record<string, unknown>,
  kind: ErrorKind,
  text = JSON.stringify(body, null, 2),
): CallToolResult {
  return {
    content: [{ type: "text", text }],
    structuredContent: body,
    isError: true,
    _meta: { [ERROR_KIND_META]: kind },
  };
}

/** The withheld-result failure: the size, the limit and how to narrow the call. */
function tooLarge(resultChars: number, hint = GENERIC_HINT, limitChars = RESULT_LIMIT_CHARS): CallToolResult {
  return failure(
    { error: "Result too large", resultChars, limitChars, hint },
    "too_large",
  );
}
