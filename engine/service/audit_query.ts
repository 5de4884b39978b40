/**
 * Filtering of audit reads (path prefix, time window, limit), shared by every store.
 *
 * @module
 */
import type { AuditRecord } from "../audit/chain.ts";
import { isObject } from "../json/value.ts";
import { parsePath, type Path, pathsOverlap, pointerToPath } from "../json/path.ts";
import type { AuditQuery } from "./ports.ts";

/**
 * The addresses a record wrote (flat mutation keys; patch pointers, a move's
 * source too) and derived. A pointer's numeric tokens are taken for indices: the
 * document they were resolved against is gone, and an index facing a member name
 * overlaps it, so the filter errs towards returning a record.
 */
function touchedPaths(record: AuditRecord): Path[] {
  const { mutations } = record;
  const out: Path[] = [];
  for (const address of [...record.derivedUpdated, ...(isObject(mutations) ? Object.keys(mutations) : [])]) {
    const parsed = parsePath(address);
    if (parsed.ok) out.push(parsed.path);
  }
  for (const op of Array.isArray(mutations) ? mutations : []) {
    if (!isObject(op) || op.op === "test") continue;
    for (const pointer of op.op === "move" ? [op.path, op.from] : [op.path]) {
      const path = pointerToPath(String(pointer), null);
      if (Array.isArray(path)) out.push(path.map((s) => /^\d+$/.test(s as string) ? +s : s));
    }
  }
  return out;
}

/**
 * Applies a query to records already ordered newest first. A record matches
 * the path when it wrote or derived the address, inside it, or above it (a
 * whole container written, a member removed with it).
 */
export function filterAudit(newestFirst: AuditRecord[], query: AuditQuery): AuditRecord[] {
  const prefix = query.pathPrefix ? parsePath(query.pathPrefix) : null;
  const out: AuditRecord[] = [];
  for (const record of newestFirst) {
    if (out.length >= query.limit) break;
    const at = Date.parse(record.timestamp);
    if (query.from !== undefined && at < query.from) continue;
    if (query.to !== undefined && at >= query.to) continue;
    if (record.sequence >= (query.before ?? Infinity)) continue;
    if (prefix && !(prefix.ok && touchedPaths(record).some((p) => pathsOverlap(prefix.path, p, true)))) {
      continue;
    }
    out.push(record);
  }
  return out;
}
