/**
 * The KV building blocks: group commit within Deno KV's limits, unit
 * splitting, and reading chunked records past interrupted writes.
 */
import assert from "node:assert/strict";
import {
  BACKGROUND_UNIT,
  CHUNK_BYTES,
  KvDatabase,
  type KvMutation,
  splitUnits,
  UNIT_LIMITS,
} from "../../server/stores/kv_database.ts";
import { utf8Length } from "../../server/utf8_length.ts";
import { encodeJson, readRecords, recordKeys, recordMutations } from "../../server/stores/kv_values.ts";
import { keysUnder, withTempDir } from "./helpers.ts";

async function withDatabase(body: (db: KvDatabase, warnings: string[]) => Promise<void>): Promise<void> {
  await withTempDir(async (dir) => {
    const warnings: string[] = [];
    const db = (await KvDatabase.open(`${dir}/svc.kv`, (w) => warnings.push(w))).acquire();
    try {
      await body(db, warnings);
    } finally {
      await db.release();
    }
  });
}

/** Counts the atomic operations committed on a database. */
function countCommits(db: KvDatabase): { count: number } {
  const counter = { count: 0 };
  const atomic = db.kv.atomic.bind(db.kv);
  db.kv.atomic = () => {
    const op = atomic();
    const commit = op.commit.bind(op);
    op.commit = () => {
      counter.count++;
      return commit();
    };
    return op;
  };
  return counter;
}

Deno.test("concurrent writes share atomic operations (group commit)", () =>
  withDatabase(async (db) => {
    const commits = countCommits(db);
    await Promise.all(Array.from({ length: 200 }, (_, i) => db.write([{ key: ["k", i], value: i }])));
    assert.ok(commits.count < 20, `${commits.count} atomic operations for 200 writes`);
    assert.equal((await keysUnder(db.kv, ["k"])).length, 200);
  }));

Deno.test("a batch never exceeds Deno KV's per-operation limits", () =>
  withDatabase(async (db) => {
    const commits = countCommits(db);
    const big = new Uint8Array(CHUNK_BYTES);
    // 40 units of 3 chunks: 7 MiB in all, several operations of at most 800 KiB each.
    await Promise.all(Array.from({ length: 40 }, (_, i) =>
      db.write([0, 1, 2].map((j) => ({ key: ["big", i, j], value: big })))));
    // 1,500 single-key units: more mutations than one operation takes.
    await Promise.all(Array.from({ length: 1500 }, (_, i) =>
      db.write([{ key: ["small", i], value: true }])));
    assert.equal((await keysUnder(db.kv, ["big"])).length, 120);
    assert.equal((await keysUnder(db.kv, ["small"])).length, 1500);
    assert.ok(commits.count >= 10, `${commits.count} atomic operations`);
  }));

Deno.test("a unit larger than one atomic operation is refused without writing", () =>
  withDatabase(async (db) => {
    const unit = Array.from(
      { length: 20 },
      (_, i) => ({ key: ["too-big", i], value: new Uint8Array(CHUNK_BYTES) }),
    );
    await assert.rejects(db.write(unit), /exceeds one atomic operation/);
    assert.deepEqual(await keysUnder(db.kv, ["too-big"]), []);
  }));

Deno.test("a failing unit fails alone, the units batched with it commit", () =>
  withDatabase(async (db) => {
    // Two operations in flight (the most there are) ...
    const first = db.write([{ key: ["first"], value: 1 }]);
    const second = db.write([{ key: ["second"], value: 2 }]);
    // ... so these two are queued behind them and share the next one.
    const bad = assert.rejects(db.write([{ key: ["bad"], value: new Uint8Array(65537) }]), /too large/i);
    const good = db.write([{ key: ["good"], value: 3 }]);
    await Promise.all([first, second, bad, good]);
    assert.equal((await db.kv.get(["good"])).value, 3);
    assert.equal((await db.kv.get(["bad"])).value, null);
  }));

Deno.test("splitUnits keeps order and respects every limit", () => {
  const mutations: KvMutation[] = [
    ...Array.from({ length: 2500 }, (_, i) => ({ key: ["s", i], value: i })),
    ...Array.from({ length: 30 }, (_, i) => ({ key: ["b", i], value: new Uint8Array(CHUNK_BYTES) })),
    ...Array.from({ length: 1200 }, (_, i) => ({ key: ["d", "x".repeat(200), i] })),
  ];
  const units = splitUnits(mutations);
  assert.deepEqual(units.flat(), mutations);
  for (const unit of units) {
    assert.ok(unit.length <= UNIT_LIMITS.mutations);
    const bytes = unit.reduce((sum, m) => sum + (m.value instanceof Uint8Array ? m.value.byteLength : 0), 0);
    assert.ok(bytes <= UNIT_LIMITS.bytes);
  }
});

Deno.test("writeStaged commits before, unit and after; one operation when they fit", () =>
  withDatabase(async (db) => {
    const commits = countCommits(db);
    await db.writeStaged({
      before: [{ key: ["v", 0], value: 0 }],
      unit: [{ key: ["head"], value: 1 }],
      after: [{ key: ["v", 0] }],
    });
    assert.equal(commits.count, 1);
    assert.deepEqual(await keysUnder(db.kv, []), [["head"]]);
    const chunks = Array.from(
      { length: 30 },
      (_, i) => ({ key: ["c", i], value: new Uint8Array(CHUNK_BYTES) }),
    );
    await db.writeStaged({
      before: chunks,
      unit: [{ key: ["head"], value: 2 }],
      after: chunks.map(({ key }) => ({ key })),
    });
    assert.ok(commits.count > 3);
    assert.deepEqual(await keysUnder(db.kv, []), [["head"]]);
  }));

Deno.test("readRecords reassembles chunked records both ways and reports strays", () =>
  withDatabase(async (db) => {
    const big = encodeJson({ text: "x".repeat(CHUNK_BYTES * 2) });
    const small = encodeJson({ text: "small" });
    const records = [
      recordMutations(["r", 0], small),
      recordMutations(["r", 1], big),
      recordMutations(["r", 3], small),
    ];
    for (const { head, chunks } of records) await db.writeAll([...chunks, head]);
    // An interrupted write (chunks without head) and a chunk beyond its head's count.
    await db.writeAll([{ key: ["r", 2, 1], value: new Uint8Array(3) }, {
      key: ["r", 0, 1],
      value: new Uint8Array(3),
    }]);
    for (const reverse of [false, true]) {
      const strays: Deno.KvKey[] = [];
      const read = [];
      for await (const record of readRecords(db.kv, ["r"], { reverse, onStray: (key) => strays.push(key) })) {
        read.push({ seq: record.seq, bytes: record.bytes, keys: record.keys.length });
      }
      if (reverse) read.reverse();
      assert.deepEqual(read, [
        { seq: 0, bytes: small, keys: 1 },
        { seq: 1, bytes: big, keys: 3 },
        { seq: 3, bytes: small, keys: 1 },
      ]);
      assert.deepEqual(strays.sort((a, b) => Number(a[1]) - Number(b[1])), [["r", 0, 1], ["r", 2, 1]]);
    }
  }));

Deno.test("a record missing a chunk reads as incomplete", () =>
  withDatabase(async (db) => {
    const { head, chunks } = recordMutations(["r", 7], encodeJson("y".repeat(CHUNK_BYTES + 10)));
    await db.write([head, ...chunks.slice(1)]);
    const read = [];
    for await (const record of readRecords(db.kv, ["r"])) read.push(record);
    assert.equal(read.length, 1);
    assert.equal(read[0].bytes, null);
    assert.deepEqual(read[0].keys, [["r", 7], ["r", 7, 1]]);
  }));

Deno.test("a record of exactly one chunk is its head alone; one byte more takes a second chunk", () => {
  const one = new Uint8Array(CHUNK_BYTES).fill(1);
  assert.deepEqual(recordMutations(["r", 1], one), { head: { key: ["r", 1], value: one }, chunks: [] });
  assert.deepEqual(recordKeys(["r", 1], 1), [["r", 1]]);
  const two = new Uint8Array(CHUNK_BYTES + 1).fill(2);
  const { head, chunks } = recordMutations(["r", 2], two);
  assert.deepEqual(head, { key: ["r", 2], value: { n: 2, data: two.slice(0, CHUNK_BYTES) } });
  assert.deepEqual(chunks, [{ key: ["r", 2, 1], value: two.slice(CHUNK_BYTES) }]);
  assert.deepEqual(recordKeys(["r", 2], 2), [["r", 2], ["r", 2, 1]]);
});

Deno.test("key sizes count UTF-8 bytes as the encoder makes them, lone surrogates included", () => {
  const encoder = new TextEncoder();
  for (
    const text of [
      "",
      "abc",
      "é",
      "€",
      "𝄞",
      "a€𝄞é\u07ff\u0800\uffff",
      "\ud800",
      "x\udc00y",
      "\ud83d\ude00\ud83d",
    ]
  ) {
    assert.equal(utf8Length(text), encoder.encode(text).byteLength, JSON.stringify(text));
  }
});

Deno.test("one atomic operation of commits at a time; units resolve with their own", () =>
  withDatabase(async (db) => {
    let running = 0;
    let most = 0;
    const durable = new Set<number>();
    const atomic = db.kv.atomic.bind(db.kv);
    db.kv.atomic = () => {
      const op = atomic();
      const commit = op.commit.bind(op);
      const set = op.set.bind(op);
      const units: number[] = [];
      op.set = (key, value) => {
        units.push(key[1] as number);
        return set(key, value);
      };
      op.commit = async () => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        const result = await commit();
        running--;
        for (const unit of units) durable.add(unit);
        return result;
      };
      return op;
    };
    await Promise.all(Array.from({ length: 60 }, async (_, i) => {
      await db.write([{ key: ["k", i], value: i }]);
      assert.ok(durable.has(i), `unit ${i} resolved before its operation committed`);
      // The next write of this "model" only now, as a model's queue does.
      await db.write([{ key: ["k", 100 + i], value: i }]);
    }));
    assert.equal(most, 1);
    assert.equal((await keysUnder(db.kv, ["k"])).length, 120);
  }));

Deno.test("the writes queued while an operation commits go together in the next one", () =>
  withDatabase(async (db) => {
    const operations = recordOperations(db);
    const first = db.write([{ key: ["first", 0], value: 0 }]);
    // A timer runs after the turn in which the first write's operation started.
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(operations.length, 1);
    const queued = Array.from({ length: 10 }, (_, i) => db.write([{ key: ["queued", i], value: i }]));
    await Promise.all([first, ...queued]);
    // With a second operation in flight, the first queued write took it alone: three operations (1, 1 and 9).
    assert.deepEqual(operations.map((keys) => keys.length), [1, 10]);
  }));

Deno.test("the writes of one turn of the event loop go in one operation when none is committing", () =>
  withDatabase(async (db) => {
    const operations = recordOperations(db);
    // Writers resumed together (by an operation's end) write in the same turn: none goes ahead alone.
    await Promise.all(Array.from({ length: 11 }, (_, i) => db.write([{ key: ["turn", i], value: i }])));
    assert.deepEqual(operations.map((keys) => keys.length), [11]);
    // A lone write still goes, and the database closes after it (the turn holds the event loop only until it comes).
    await db.write([{ key: ["lone"], value: 1 }]);
    assert.deepEqual(operations.map((keys) => keys.length), [11, 1]);
  }));

Deno.test("release waits for every queued and in-flight write before closing", () =>
  withTempDir(async (dir) => {
    const db = (await KvDatabase.open(`${dir}/svc.kv`, () => {})).acquire();
    const writes = Array.from({ length: 50 }, (_, i) => db.write([{ key: ["w", i], value: i }]));
    await db.release();
    await Promise.all(writes);
    const kv = await Deno.openKv(`${dir}/svc.kv`);
    try {
      assert.equal((await keysUnder(kv, ["w"])).length, 50);
    } finally {
      kv.close();
    }
  }));

/** Records each atomic operation's keys (as `kind:n` of its first key) in commit order. */
function recordOperations(db: KvDatabase): string[][] {
  const operations: string[][] = [];
  const atomic = db.kv.atomic.bind(db.kv);
  db.kv.atomic = () => {
    const op = atomic();
    const keys: string[] = [];
    const set = op.set.bind(op);
    const del = op.delete.bind(op);
    op.set = (key, value) => (keys.push(String(key[0])), set(key, value));
    op.delete = (key) => (keys.push(String(key[0])), del(key));
    const commit = op.commit.bind(op);
    op.commit = () => (operations.push(keys), commit());
    return op;
  };
  return operations;
}

Deno.test("background work commits in small operations of its own, after the commits waiting", () =>
  withDatabase(async (db) => {
    await db.writeAll(Array.from({ length: 300 }, (_, i) => ({ key: ["old", i], value: i })));
    const operations = recordOperations(db);
    // A commit in flight and one queued behind it, so the background work and the writes after it queue.
    const first = [db.write([{ key: ["fg", -1], value: 0 }]), db.write([{ key: ["fg", -2], value: 0 }])];
    const background = db.writeInBackground(Array.from({ length: 300 }, (_, i) => ({ key: ["old", i] })));
    const writes = Array.from({ length: 20 }, (_, i) => db.write([{ key: ["fg", i], value: i }]));
    await Promise.all([...first, background, ...writes]);
    assert.deepEqual(await keysUnder(db.kv, ["old"]), []);
    assert.equal((await keysUnder(db.kv, ["fg"])).length, 22);
    const kinds = operations.map((keys) => [...new Set(keys)]);
    // Never mixed, never larger than BACKGROUND_UNIT, and the waiting commits went first.
    assert.ok(kinds.every((k) => k.length === 1), JSON.stringify(kinds));
    const backgroundOps = operations.filter((keys) => keys[0] === "old");
    assert.equal(backgroundOps.flat().length, 300);
    assert.ok(backgroundOps.every((keys) => keys.length <= BACKGROUND_UNIT));
    assert.ok(backgroundOps.length >= Math.ceil(300 / BACKGROUND_UNIT));
    const lastForeground = operations.findLastIndex((keys) => keys[0] === "fg");
    const firstBackground = operations.findIndex((keys) => keys[0] === "old");
    assert.ok(lastForeground < firstBackground, JSON.stringify(operations.map((keys) => keys[0])));
  }));

Deno.test("background work is not starved by commits that never let up", () =>
  withDatabase(async (db) => {
    const operations = recordOperations(db);
    let done = false;
    const background = db.writeInBackground(
      Array.from({ length: 4 * BACKGROUND_UNIT }, (_, i) => ({ key: ["bg", i], value: i })),
    ).then(() => done = true);
    // Eight writers, each writing again the moment its commit is durable: the queue is never empty.
    let written = 0;
    await Promise.all(Array.from({ length: 8 }, async (_, writer) => {
      while (!done && written < 5000) await db.write([{ key: ["fg", writer, written++], value: 1 }]);
    }));
    await background;
    assert.ok(written < 5000, `background work waited for ${written} writes`);
    assert.equal((await keysUnder(db.kv, ["bg"])).length, 4 * BACKGROUND_UNIT);
    assert.ok(operations.some((keys) => keys[0] === "fg"));
  }));

Deno.test("release waits for background work", async () => {
  await withTempDir(async (dir) => {
    const db = (await KvDatabase.open(`${dir}/svc.kv`, () => {})).acquire();
    const background = db.writeInBackground(
      Array.from({ length: 200 }, (_, i) => ({ key: ["bg", i], value: i })),
    );
    await db.release();
    await background;
    const kv = await Deno.openKv(`${dir}/svc.kv`);
    try {
      assert.equal((await keysUnder(kv, ["bg"])).length, 200);
    } finally {
      kv.close();
    }
  });
});
