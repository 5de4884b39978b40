/**
 * The one argument check every surface runs before an operation: members
 * present, of the declared types and ranges, unknown members refused where
 * the surface is strict. A failure is a 400 {@link ServiceError} whose message
 * names the argument the way the caller wrote it (a console or MCP argument,
 * or the REST request's body, query parameter or header).
 *
 * @module
 */
import type { z } from "zod";
import { badRequest } from "../errors.ts";
import { isObject, setMember } from "../json/value.ts";
import type { AnyOperation } from "./operation.ts";

/** How a surface checks its arguments. */
export interface CheckOptions {
  /** The members this surface accepts (default: every input member). */
  args?: readonly string[];
  /** Refuse members outside `args`, naming this caller (an MCP tool, a console command); otherwise they are ignored. */
  strictFor?: string;
  /** The argument whose object an unknown member belongs inside, if any (MCP: `expectedVersion` in `evolution`). */
  ownerOf?(member: string): string | undefined;
  /** REST: where a member came from (`request body`, `query parameter 'limit'`). */
  where?(member: string): string;
}

/** The input members an operation declares. */
export function inputMembers(op: AnyOperation): string[] {
  return Object.keys((op.input as z.ZodObject).shape);
}

/**
 * Whether an input member may be left out (optional or defaulted): zod's own
 * key optionality, which the object check and the JSON Schemas' `required` go
 * by; not whether the member's schema accepts `undefined`, which `z.unknown()`
 * does for a required member.
 */
export function isOptionalMember(op: AnyOperation, member: string): boolean {
  const schema = (op.input as z.ZodObject).shape[member] as z.ZodType | undefined;
  return schema === undefined || schema._zod.optin !== undefined;
}

/**
 * Checks raw arguments against an operation's input and returns the typed
 * input. `null` counts as absent.
 */
export function checkInput<I>(op: AnyOperation, raw: Record<string, unknown>, options: CheckOptions = {}): I {
  const accepted = options.args ?? inputMembers(op);
  const given: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === null || value === undefined) continue;
    if (accepted.includes(name)) given[name] = value;
    else if (options.strictFor !== undefined) {
      const owner = options.ownerOf?.(name);
      throw badRequest(
        `Unknown argument '${name}' for ${options.strictFor}; expected: ${accepted.join(", ") || "none"}` +
          (owner ? `; '${name}' goes inside '${owner}'` : ""),
      );
    }
  }
  const parsed = (op.input as z.ZodType).safeParse(given);
  if (parsed.success) {
    // zod copies a record's members and loses an own `__proto__`: put it back, for the service to refuse
    // (a mutation key that is no address), not to pass unseen.
    // A list of records too (dry_run's mutation maps), one level down.
    const restore = (value: unknown, out: unknown, list: boolean) => {
      if (list && Array.isArray(value) && Array.isArray(out)) {
        value.forEach((v, i) => restore(v, out[i], false));
      } else if (isObject(value) && isObject(out) && Object.hasOwn(value, "__proto__")) {
        setMember(out, "__proto__", value["__proto__"]);
      }
    };
    for (const name in given) restore(given[name], (parsed.data as Record<string, unknown>)[name], true);
    return parsed.data as I;
  }
  const issue = reportedIssue(parsed.error.issues);
  // zod expects a "number" where an integer member is given a non-number; the schemas say integer.
  const member = (op.input as z.ZodObject).shape[issue.path[0] as string] as Int | undefined;
  const integer = issue.code === "invalid_type" && issue.path.length === 1 &&
    (member?.unwrap?.() ?? member)?.isInt;
  throw badRequest(describeIssue(integer ? { ...issue, expected: "int" } : issue, given, options));
}

/** What tells an integer member's schema (through `.optional()`). */
type Int = { isInt?: boolean; unwrap?(): Int };

type Issue = z.core.$ZodIssue;

/** How tight a range issue's bound is (higher is tighter); NaN for other issues. */
function tightness(issue: Issue): number {
  if (issue.code === "too_big") return -Number(issue.maximum);
  if (issue.code === "too_small") return Number(issue.minimum);
  return NaN;
}

/**
 * The issue to report: the first, or a tighter bound of the same kind on the
 * same value. An integer far out of range breaks zod's safe-integer bound
 * first, which is not the limit the caller needs to hear (10000, not 2^53-1).
 */
function reportedIssue(issues: Issue[]): Issue {
  const [first] = issues;
  const at = JSON.stringify(first.path);
  return issues.reduce((reported, issue) =>
    issue.code === first.code && JSON.stringify(issue.path) === at && tightness(issue) > tightness(reported)
      ? issue
      : reported
  );
}

/** A JSON type name for zod's expectation. */
function typeName(expected: string): string {
  switch (expected) {
    case "record":
      return "object";
    case "int":
      return "integer";
    case "tuple":
      return "array";
    case "nonoptional":
      return "any value";
    default:
      return expected;
  }
}

/** `patch[0].op` from `["patch", 0, "op"]`. */
function formatIssuePath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join(
    "",
  );
}

/** The expected types of a failed union, from each branch's first complaint. */
function unionExpectation(issue: Issue & { errors?: Issue[][] }): string {
  const names = (issue.errors ?? []).map((branch) => {
    const first = branch[0] as (Issue & { expected?: string }) | undefined;
    return first?.code === "invalid_type" && first.path.length === 0
      ? typeName(String(first.expected))
      : null;
  });
  return names.every((n) => n !== null) && names.length
    ? `expected ${[...new Set(names)].join(" or ")}`
    : "does not match any accepted form";
}

/** The value at an issue's path in what was given. */
function received(given: unknown, path: readonly PropertyKey[]): unknown {
  let node = given;
  for (const key of path) node = (node as Record<PropertyKey, unknown> | undefined)?.[key];
  return node;
}

function detail(issue: Issue, given: unknown): string {
  switch (issue.code) {
    case "invalid_type":
      return `expected ${typeName(String(issue.expected))}`;
    case "too_small":
      return issue.origin === "array"
        ? `must have at least ${issue.minimum} item${Number(issue.minimum) === 1 ? "" : "s"}`
        : `must be at least ${issue.minimum}`;
    case "too_big":
      return issue.origin === "array"
        ? `must have at most ${issue.maximum} items`
        : `must be at most ${issue.maximum}`;
    case "invalid_value":
      return `${JSON.stringify(received(given, issue.path))} is not one of: ${
        issue.values.map((v) => JSON.stringify(v)).join(", ")
      }`;
    case "invalid_union":
      return unionExpectation(issue as Issue & { errors?: Issue[][] });
    case "unrecognized_keys":
      return `unknown member${issue.keys.length === 1 ? "" : "s"} ${
        issue.keys.map((k) => `'${k}'`).join(", ")
      }`;
    default:
      return issue.message;
  }
}

function describeIssue(issue: Issue, given: unknown, options: CheckOptions): string {
  const [member, ...inner] = issue.path;
  const missing = issue.code === "invalid_type" && issue.path.length === 1 &&
    received(given, issue.path) === undefined;
  if (options.where && typeof member === "string") {
    const place = inner.length ? ` at ${formatIssuePath(["", ...inner]).replace(/^\./, "")}` : "";
    return missing
      ? `Missing ${options.where(member)}`
      : `Invalid ${options.where(member)}${place}: ${detail(issue, given)}`;
  }
  if (missing) {
    // A member that takes any value (a spec, checked on its own) has no expectation worth naming.
    const expected = (issue as { expected?: string }).expected === "nonoptional"
      ? ""
      : ` (${detail(issue, given)})`;
    return `Missing required field: '${String(member)}'${expected}`;
  }
  return `Invalid field '${formatIssuePath(issue.path)}': ${detail(issue, given)}`;
}
