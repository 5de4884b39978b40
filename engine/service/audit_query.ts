/**
 * Filtering of audit reads (path prefix, time window, limit), shared by every store.
 *
 * @module
 */
import type { AuditRecord } from "../audit/chain.ts";
import { isObject } from "../json/value.ts";
import { parsePath, pathsOverlap } from "../json/path.ts";
import type { AuditQuery } from "./ports.ts";

/** The addresses a record wrote (flat mutation keys or patch pointers) and derived. */
function touchedAddresses(record: AuditRecord): string[] {
  const out = [...record.derivedUpdated];
  if (Array.isArray(record.mutations)) {
    for (const op of record.mutations) {
      if (isObject(op) && typeof op.path === "string") {
        out.push("$" + op.path.split("/").slice(1).map((t) => /^\d+$/.test(t) ? `[${t}]` : `.${t}`).join(""));
      }
    }
  } else if (isObject(record.mutations)) {
    out.push(...Object.keys(record.mutations));
  }
  return out;
}

/** Applies a query to records already ordered newest first. */
export function filterAudit(newestFirst: AuditRecord[], query: AuditQuery): AuditRecord[] {
  const prefix = query.pathPrefix ? parsePath(query.pathPrefix) : null;
  const out: AuditRecord[] = [];
  for (const record of newestFirst) {
    if (out.length >= query.limit) break;
    const at = Date.parse(record.timestamp);
    if (query.from !== undefined && at < query.from) continue;
    if (query.to !== undefined && at >= query.to) continue;
    if (prefix) {
      if (!prefix.ok) continue;
      const hit = touchedAddresses(record).some((a) => {
        const p = parsePath(a);
        return p.ok && p.path.length >= prefix.path.length && pathsOverlap(prefix.path, p.path);
      });
      if (!hit) continue;
    }
    out.push(record);
  }
  return out;
}
