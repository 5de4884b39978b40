/**
 * Paging through an audit trail whose commits share a timestamp: `to` (the
 * oldest timestamp of a page) skips the rest of that millisecond, `before`
 * (its sequence) reaches every record once.
 */
import assert from "node:assert/strict";
import { getAudit } from "../operations/audit.ts";
import { serviceOf } from "../_test_utils.ts";

Deno.test("before pages through records that share a millisecond, each once and newest first", async () => {
  const { service } = await serviceOf();
  await service.createModel({ id: "m", schema: { type: "object" } });
  for (let i = 0; i < 7; i++) await service.mutate("m", { "$.n": i });
  const all = await service.getAudit("m");
  assert.equal(new Set(all.map((r) => r.timestamp)).size, 1, "the manual clock stands still");

  const seen: number[] = [];
  let before: number | undefined;
  for (let pages = 0; pages < 5; pages++) { // bounded: a cursor that does not move would page for ever
    const page = await service.getAudit("m", { limit: 3, before });
    if (!page.length) break;
    seen.push(...page.map((r) => r.sequence));
    before = page.at(-1)!.sequence;
  }
  assert.deepEqual(seen, [6, 5, 4, 3, 2, 1, 0]);
  assert.deepEqual(
    (await service.getAudit("m", { before: 0 })).length,
    0,
    "nothing is older than the first record",
  );
  // The operation every surface serves takes it too, and refuses a negative one.
  assert.equal(getAudit.input.safeParse({ id: "m", before: -1 }).success, false);
  const parsed = getAudit.input.parse({ id: "m", before: 2, limit: 1 });
  assert.deepEqual((await getAudit.run(service, parsed)).map((r) => r.sequence), [1]);
  await service.close();
});
