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
  assert.deepEqual(seqs(filterAudit(NEWEST_FIRST, { limit: 10, pathPrefix: "$.customer.first" })), []);
});

Deno.test("filterAudit returns a write of a container above the path: it replaced what was there", () => {
  assert.deepEqual(seqs(filterAudit(NEWEST_FIRST, { limit: 10, pathPrefix: "$.customer.name.first" })), [2]);
  assert.deepEqual(seqs(filterAudit(NEWEST_FIRST, { limit: 10, pathPrefix: "$.items[1].qty" })), [0]);
  const root = [record(0, [{ op: "replace", path: "", value: {} }])];
  assert.deepEqual(seqs(filterAudit(root, { limit: 10, pathPrefix: "$.any.thing" })), [0]);
});

Deno.test("filterAudit reads patch pointers as RFC 6901 members: escapes, dots and spaces; a move's source", () => {
  const patches = [
    record(5, [{ op: "copy", from: "/cd", path: "/w" }, { op: "test", path: "/t", value: 1 }]),
    record(4, [{ op: "move", from: "/ab", path: "/z" }]),
    record(3, [{ op: "add", path: "/m n", value: 1 }]),
    record(2, [{ op: "add", path: "/x.y", value: 1 }]),
    record(1, [{ op: "add", path: "/a~1b", value: 1 }]),
    record(0, [{ op: "add", path: "/t~0~01", value: 1 }]),
  ];
  const hits = (pathPrefix: string) => seqs(filterAudit(patches, { limit: 10, pathPrefix }));
  assert.deepEqual(hits("$['a/b']"), [1]);
  assert.deepEqual(hits("$.a"), []);
  assert.deepEqual(hits("$['x.y']"), [2]);
  assert.deepEqual(hits("$.x"), []);
  assert.deepEqual(hits("$.x.y"), []);
  assert.deepEqual(hits("$['m n']"), [3]);
  assert.deepEqual(hits("$['t~~1']"), [0]);
  assert.deepEqual(hits("$.ab"), [4], "a move takes its source away");
  assert.deepEqual(hits("$.z"), [4]);
  assert.deepEqual(hits("$.cd"), [], "a copy only reads its source");
  assert.deepEqual(hits("$.w"), [5]);
  assert.deepEqual(hits("$.t"), [], "a test writes nothing");
});

Deno.test("filterAudit applies from (inclusive), to (exclusive) and limit", () => {
  const at = (s: number) => Date.UTC(2024, 0, 1, 0, 0, s);
  assert.deepEqual(seqs(filterAudit(NEWEST_FIRST, { limit: 10, from: at(1), to: at(3) })), [2, 1]);
  assert.deepEqual(seqs(filterAudit(NEWEST_FIRST, { limit: 2 })), [3, 2]);
});

Deno.test("filterAudit reads a wildcard as RFC 9535's: any member or index", () => {
  const records = [
    record(3, { "$.customer": "x" }),
    record(2, { "$.totals.net": 3 }),
    record(1, { "$.items[0].qty": 2 }),
    record(0, [{ op: "replace", path: "/totals/gross", value: 1 }]),
  ];
  const hits = (pathPrefix: string) => seqs(filterAudit(records, { limit: 10, pathPrefix }));
  assert.deepEqual(hits("$[*]"), [3, 2, 1, 0]);
  assert.deepEqual(hits("$.totals[*]"), [2, 0]);
  assert.deepEqual(hits("$[*].net"), [3, 2], "$.customer whole may have held a net");
  assert.deepEqual(hits("$[*].qty"), [3, 1]);
  assert.deepEqual(hits("$.items[*].qty"), [1]);
});
