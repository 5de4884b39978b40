import assert from "node:assert/strict";
import type { AuditRecord } from "../audit/chain.ts";
import type { Json } from "../json/value.ts";
import { filterAudit } from "./audit_query.ts";

const record = (sequence: number, mutations: Json, derivedUpdated: string[] = []): AuditRecord => ({
  modelId: "m",
  sequence,
  timestamp: new Date(Date.UTC(2024, 0, 1, 0, 0, sequence)).toISOString(),
  modelVersion: "1.0.0",
  source: Array.isArray(mutations) ? "patch" : "client",
  mutations,
  derivedUpdated,
  flaggedConstraints: [],
  dispatchedEffects: [],
  traces: [],
  prevHash: "",
  hash: "",
});

const NEWEST_FIRST = [
  record(3, [{ op: "replace", path: "/items/0/qty", value: 1 }]),
  record(2, { "$.customer.name": "x" }),
  record(1, { "$.note": "y" }, ["$.items[0].total"]),
  record(0, { "$.items[1]": {} }),
];
const seqs = (records: AuditRecord[]) => records.map((r) => r.sequence);

Deno.test("filterAudit keeps records whose written or derived addresses fall under the prefix", () => {
  assert.deepEqual(seqs(filterAudit(NEWEST_FIRST, { limit: 10, pathPrefix: "$.items" })), [3, 1, 0]);
  assert.deepEqual(seqs(filterAudit(NEWEST_FIRST, { limit: 10, pathPrefix: "$.items[0]" })), [3, 1]);
  assert.deepEqual(seqs(filterAudit(NEWEST_FIRST, { limit: 10, pathPrefix: "$.customer" })), [2]);
  assert.deepEqual(seqs(filterAudit(NEWEST_FIRST, { limit: 10, pathPrefix: "$.customer.name.first" })), []);
});

Deno.test("filterAudit applies from (inclusive), to (exclusive) and limit", () => {
  const at = (s: number) => Date.UTC(2024, 0, 1, 0, 0, s);
  assert.deepEqual(seqs(filterAudit(NEWEST_FIRST, { limit: 10, from: at(1), to: at(3) })), [2, 1]);
  assert.deepEqual(seqs(filterAudit(NEWEST_FIRST, { limit: 2 })), [3, 2]);
});
