/**
 * A server effect's `requests` fan-out as its executor sends it: each object
 * the expression yields is a descriptor `{method, url, headers, body, set,
 * dedupeKey, statusPath}` (anything else is skipped). A descriptor's own
 * `statusPath` is checked when the effect fires, not when its result comes
 * back: a concrete address of a field, clear of every effect's status
 * document, where the model accepts both documents the fold-back may write
 * there (`applied`, `failed`). One that fails this fails the whole fan-out at
 * once, nothing sent: requests whose outcome could not be recorded are not
 * sent.
 *
 * @module
 */
import { schemaViolation } from "../errors.ts";
import { formatPath, isPrefixOf, parseConcretePath } from "../json/path.ts";
import { isObject, type Json } from "../json/value.ts";
import { statusDocument } from "../model/status_document.ts";
import type { CycleState } from "./cycle_state.ts";
import type { EffectWork, HttpRequestSpec } from "./results.ts";
import { checkStatusWrite } from "./write_checks.ts";

/** The work of a fan-out whose expression yielded `listed` (one object stands for a list of one). */
export function fanOutWork(state: CycleState, listed: Json | undefined): EffectWork {
  const items = Array.isArray(listed) ? listed : listed === undefined ? [] : [listed];
  const requests: HttpRequestSpec[] = [];
  for (const [i, item] of items.entries()) {
    if (!isObject(item)) continue;
    const problem = item.statusPath === undefined || item.statusPath === null
      ? null
      : statusProblem(state, item.statusPath, item.dedupeKey ?? null);
    if (problem) return { type: "invalid", error: `requests[${i}].statusPath: ${problem}` };
    requests.push(descriptorOf(item));
  }
  return { type: "http", requests, fanOut: true };
}

/** Why a descriptor's status documents (with its `key`) cannot go to `address`, if they cannot. */
function statusProblem(state: CycleState, address: Json, key: Json): string | null {
  const parsed = parseConcretePath(address);
  if (!parsed.ok) return parsed.message;
  const path = parsed.path;
  if (!path.length) return "a statusPath names a field: the status document cannot be the whole document";
  const claimed = state.model.graph.effects.find(({ effect: { statusPath } }) =>
    statusPath && (isPrefixOf(path, statusPath) || isPrefixOf(statusPath, path))
  );
  if (claimed) {
    return `${
      formatPath(path)
    } is at, inside or above the statusPath of effect '${claimed.effect.definition.id}' ` +
      `(${formatPath(claimed.effect.statusPath!)}): each keeps its own status document`;
  }
  for (
    const document of [
      statusDocument("applied", key, state.now),
      statusDocument("failed", key, state.now, ""),
    ]
  ) {
    const refused = checkStatusWrite(state, path, document);
    if (refused.length) {
      return `the model refuses the status document there: ${schemaViolation(refused).message}`;
    }
  }
  return null;
}

/** A descriptor as it is sent. */
function descriptorOf(item: Record<string, Json>): HttpRequestSpec {
  const headers = isObject(item.headers)
    ? Object.fromEntries(Object.entries(item.headers).map(([k, v]) => [k, String(v)]))
    : {};
  return {
    method: typeof item.method === "string" ? item.method.toUpperCase() : "GET",
    url: String(item.url ?? ""),
    headers,
    ...(item.body === undefined ? {} : { body: item.body }),
    ...(isObject(item.set)
      ? { set: Object.fromEntries(Object.entries(item.set).map(([k, v]) => [k, String(v)])) }
      : {}),
    ...(typeof item.statusPath === "string" ? { statusPath: item.statusPath } : {}),
    ...(item.dedupeKey === undefined ? {} : { dedupeKey: item.dedupeKey }),
  };
}
