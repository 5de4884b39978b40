/**
 * A model's writes queued behind one another on Deno KV are committed as a
 * batch (ModelStore.commitMany): each evaluated on top of the ones before it,
 * one durable write for all of them, applied in order, each caller answered
 * with its own result. A write its cycle refuses fails alone; a failed durable
 * write fails the whole batch with nothing applied; a task queued between
 * writes keeps its place; a batch too large for one atomic operation is
 * committed one write at a time.
 */
import assert from "node:assert/strict";
import type { ModelSpec } from "../../engine/model/types.ts";
import type { ModelService } from "../../engine/service/service.ts";
import { type AtomicWrites, holdAtomicOperations, openService, within, withTempDir } from "./helpers.ts";

const SPEC = {
  id: "tally",
  schema: {
    type: "object",
    properties: {
      n: { type: "integer" },
      note: { type: "string" },
      twice: { type: "integer", readOnly: true },
    },
  },
  derivations: [{ path: "$.twice", expr: "n * 2" }],
  constraints: [{ id: "small", expr: "n < 1000", message: "n must stay below 1000", policy: "rollback" }],
} as ModelSpec;

/** Log entries (`["L", g, id, seq]`, a large one with its chunks) an atomic operation writes. */
const logEntries = (writes: AtomicWrites) =>
  new Set(writes.sets.filter((key) => key[0] === "L").map((key) => key[3])).size;

/**
 * Opens a KV service with the model, holds the next log write (a write in
 * flight) so the writes `queue` starts wait in the model's queue behind it,
 * then releases it; resolves with every answer (or error) and the log entries
 * each atomic operation wrote.
 */
async function queuedBehindOne(
  dir: string,
  queue: (service: ModelService) => Promise<unknown>[],
  keys: Record<string, string> = {},
) {
  const { service, storage } = await openService({ "svc.persistence-dir": dir, ...keys });
  await service.createModel(SPEC);
  const operations: number[] = [];
  const hold = holdAtomicOperations((writes, heldBefore) => {
    if (logEntries(writes)) operations.push(logEntries(writes));
    return heldBefore === 0 && logEntries(writes) > 0;
  });
  try {
    const first = service.mutate("tally", { "$.n": 1 });
    while (hold.held === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    const rest = queue(service);
    hold.release();
    const answers = await within(
      Promise.allSettled([first, ...rest]),
      "the queued writes",
    );
    return { service, storage, answers, operations };
  } finally {
    hold.restore();
  }
}

const fulfilled = (answer: PromiseSettledResult<unknown>) => {
  assert.equal(answer.status, "fulfilled", answer.status === "rejected" ? String(answer.reason) : "");
  return (answer as PromiseFulfilledResult<unknown>).value;
};

Deno.test("writes queued behind a durable write are committed together, each answered with its own result", () =>
  withTempDir(async (dir) => {
    const { service, answers, operations } = await queuedBehindOne(
      dir,
      (service) => [2, 3, 4, 5, 6].map((n) => service.mutate("tally", { "$.n": n })),
    );
    for (const answer of answers) {
      assert.deepEqual((fulfilled(answer) as { derivedUpdated: string[] }).derivedUpdated, ["$.twice"]);
    }
    assert.deepEqual(
      operations,
      [1, 5],
      "the held write alone, then the five queued behind it in one operation",
    );
    assert.deepEqual(await service.getState("tally"), { n: 6, twice: 12 });
    const audit = await service.getAudit("tally");
    assert.deepEqual(
      audit.map((r) => r.mutations).reverse().slice(-6),
      [1, 2, 3, 4, 5, 6].map((n) => ({ "$.n": n })),
    );
    await service.close();

    const { service: reopened } = await openService({ "svc.persistence-dir": dir });
    assert.deepEqual(await reopened.getState("tally"), { n: 6, twice: 12 });
    assert.equal(
      (await reopened.getHistory("tally")).length,
      6,
      "every write in history, the batched ones too",
    );
    assert.equal((await reopened.verifyAudit("tally")).valid, true);
    await reopened.close();
  }));

Deno.test("a batch longer than history is folded into the checkpoint of its writes' own history", () =>
  withTempDir(async (dir) => {
    // History keeps 2 states and the log folds at 3 entries: the batch of six folds it, past the runtime's history.
    const keys = { "svc.history.max-entries": "2", "svc.storage.compaction-threshold": "3" };
    const { service, answers, operations } = await queuedBehindOne(
      dir,
      (service) => [2, 3, 4, 5, 6, 7].map((n) => service.mutate("tally", { "$.n": n })),
      keys,
    );
    for (const answer of answers) fulfilled(answer);
    assert.deepEqual(operations, [1, 6]);
    const observe = async (service: ModelService) => {
      const history = await service.getHistory("tally");
      return {
        state: await service.getState("tally"),
        history,
        past: await Promise.all(history.map((at) => service.getState("tally", at))),
      };
    };
    const before = await observe(service);
    assert.deepEqual(before.past, [{ n: 6, twice: 12 }, { n: 7, twice: 14 }]);
    await service.close();
    const { service: reopened } = await openService({ "svc.persistence-dir": dir, ...keys });
    assert.deepEqual(await observe(reopened), before);
    assert.equal((await reopened.verifyAudit("tally")).valid, true);
    await reopened.close();
  }));

Deno.test("a write its cycle refuses fails alone; the next one builds on the last write that stood", () =>
  withTempDir(async (dir) => {
    const { service, answers } = await queuedBehindOne(
      dir,
      (service) => [5, 5000, 7].map((n) => service.mutate("tally", { "$.n": n })),
    );
    fulfilled(answers[0]);
    fulfilled(answers[1]);
    assert.equal(answers[2].status, "rejected");
    assert.match(String((answers[2] as PromiseRejectedResult).reason), /n must stay below 1000/);
    fulfilled(answers[3]);
    assert.deepEqual(await service.getState("tally"), { n: 7, twice: 14 });
    assert.deepEqual((await service.getAudit("tally")).slice(0, 3).map((r) => r.mutations), [
      { "$.n": 7 },
      { "$.n": 5 },
      { "$.n": 1 },
    ]);
    assert.equal((await service.verifyAudit("tally")).valid, true);
    await service.close();
  }));

Deno.test("a task queued between writes keeps its place: it sees the writes before it, not those after", () =>
  withTempDir(async (dir) => {
    let read: unknown;
    const { service, answers, operations } = await queuedBehindOne(dir, (service) => [
      service.mutate("tally", { "$.n": 2 }),
      service.getState("tally").then((state) => read = state),
      service.mutate("tally", { "$.n": 3 }),
    ]);
    for (const answer of answers) fulfilled(answer);
    assert.deepEqual(read, { n: 2, twice: 4 });
    assert.deepEqual(operations, [1, 1, 1]);
    assert.deepEqual(await service.getState("tally"), { n: 3, twice: 6 });
    await service.close();
  }));

Deno.test("a failed durable write fails the whole batch and applies none of it", () =>
  withTempDir(async (dir) => {
    const { service, storage } = await openService({ "svc.persistence-dir": dir });
    await service.createModel(SPEC);
    const commit = Deno.AtomicOperation.prototype.commit;
    let refusals = 0;
    const hold = holdAtomicOperations((writes, heldBefore) => heldBefore === 0 && logEntries(writes) === 1);
    try {
      const first = service.mutate("tally", { "$.n": 1 });
      while (hold.held === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      const batch = [2, 3].map((n) => service.mutate("tally", { "$.n": n }));
      // The batch's operation (it carries log entry 2) is refused by the database (a full disk, say).
      const { set } = Deno.AtomicOperation.prototype;
      const refused = new WeakSet<Deno.AtomicOperation>();
      Deno.AtomicOperation.prototype.set = function (this: Deno.AtomicOperation, key, value, options) {
        if (key[0] === "L" && key[3] === 2) refused.add(this);
        return set.call(this, key, value, options);
      };
      const held = Deno.AtomicOperation.prototype.commit;
      Deno.AtomicOperation.prototype.commit = function (this: Deno.AtomicOperation) {
        if (!refused.has(this)) return held.call(this);
        refusals++;
        return Promise.resolve({ ok: false } as Deno.KvCommitError);
      };
      hold.release();
      await first;
      const results = await within(Promise.allSettled(batch), "the refused batch");
      assert.deepEqual(results.map((r) => r.status), ["rejected", "rejected"]);
      assert.ok(refusals >= 1, "the batch's operation was the refused one");
    } finally {
      hold.restore();
      Deno.AtomicOperation.prototype.commit = commit;
    }
    assert.deepEqual(await service.getState("tally"), { n: 1, twice: 2 }, "nothing of the batch applied");
    await service.mutate("tally", { "$.n": 9 });
    await service.close();
    await storage.store.close();

    const { service: reopened } = await openService({ "svc.persistence-dir": dir });
    assert.deepEqual(await reopened.getState("tally"), { n: 9, twice: 18 });
    assert.deepEqual((await reopened.getAudit("tally")).slice(0, 2).map((r) => r.mutations), [
      { "$.n": 9 },
      { "$.n": 1 },
    ]);
    assert.equal((await reopened.verifyAudit("tally")).valid, true);
    await reopened.close();
  }));

Deno.test("a batch too large for one atomic operation is committed one write at a time", () =>
  withTempDir(async (dir) => {
    const note = (c: string) => c.repeat(300_000);
    const { service, answers, operations } = await queuedBehindOne(
      dir,
      (service) => ["a", "b", "c"].map((c) => service.mutate("tally", { "$.note": note(c) })),
    );
    for (const answer of answers) fulfilled(answer);
    assert.deepEqual(operations.filter((entries) => entries > 1), [], "no operation carried two writes");
    assert.equal(((await service.getState("tally")) as { note: string }).note, note("c"));
    assert.equal((await service.verifyAudit("tally")).valid, true);
    await service.close();
  }));
