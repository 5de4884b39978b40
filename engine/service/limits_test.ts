import assert from "node:assert/strict";
import { rejectsWith, runtimeOf, serviceOf } from "../_test_utils.ts";
import { ServiceError } from "../errors.ts";
import { randomSource } from "../json/test_support.ts";
import type { CycleOutcome, PatchOperation } from "../runtime/results.ts";
import { randomWrite } from "../runtime/test_support.ts";
import { MemoryModelStore } from "./memory.ts";
import type { LoadedModel, LogEntry, PersistedState } from "./ports.ts";
import { ModelService } from "./service.ts";
import type { ModelSpec } from "../model/types.ts";

/** A store that keeps the last saved state and the log after it, and loads them back. */
class LogStore extends MemoryModelStore {
  readonly models = new Map<string, LoadedModel>();
  override load(): Promise<LoadedModel[]> {
    return Promise.resolve(structuredClone([...this.models.values()]));
  }
  override save(...args: unknown[]): Promise<void> {
    const [spec, state] = args as [ModelSpec, PersistedState];
    this.models.set(spec.id, structuredClone({ spec, base: state, log: [] }));
    return Promise.resolve();
  }
  override commit(modelId: string, entry: unknown): Promise<void> {
    this.models.get(modelId)!.log.push(structuredClone(entry as LogEntry));
    return Promise.resolve();
  }
}

const spec = {
  id: "m",
  schema: { type: "object", properties: { rate: { type: "number", maximum: 10 }, o: { type: "object" } } },
  derivations: [{ path: "$.double", expr: "rate * 2" }],
};

Deno.test("non-finite numbers, deep values and oversized states are refused and change nothing", async () => {
  const { service } = await serviceOf({ maxDepth: 16, maxStateBytes: 10_000 });
  await service.createModel(spec);
  await service.mutate("m", { "$.rate": 2 });
  await rejectsWith(() => service.mutate("m", { "$.rate": Infinity }), "schema_violation", /finite/);
  await rejectsWith(() => service.mutate("m", { "$.o.x": { y: [NaN] } }), "schema_violation", /finite/);
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = { d: deep };
  await rejectsWith(
    () => service.mutate("m", { "$.o": deep as never }),
    "validation_failed",
    /max-depth \(16/,
  );
  await rejectsWith(
    () => service.patch("m", [{ op: "add", path: "/o/d", value: deep as never }]),
    "validation_failed",
    /max-depth/,
  );
  await rejectsWith(
    () => service.mutate("m", { "$.o.a1[999999]": 1 }),
    "too_large",
    /max-state-bytes \(10000\)/,
  );
  await rejectsWith(
    () => service.mutate("m", { "$.o.s": "x".repeat(20_000) }),
    "too_large",
    /max-state-bytes/,
  );
  await rejectsWith(
    () => service.patch("m", [{ op: "add", path: "/s", value: "x".repeat(20_000) }]),
    "too_large",
    /max-state-bytes/,
  );
  assert.deepEqual(await service.getState("m"), { rate: 2, double: 4 });
  // Small writes still pass, and shrinking is always allowed.
  await service.mutate("m", { "$.o.s": "x".repeat(5_000) });
  await service.mutate("m", { "$.o.s": "y" });
  assert.deepEqual(await service.getState("m"), { rate: 2, double: 4, o: { s: "y" } });
});

Deno.test("a written scalar is refused when non-finite, named at its address however it is spelt, or too deep", async () => {
  const { service } = await serviceOf({ maxDepth: 4 });
  await service.createModel(spec);
  for (const [address, path] of [["$.rate", "$.rate"], ["$['o'].list[2]", "$.o.list[2]"]]) {
    const err = await rejectsWith(() => service.mutate("m", { [address]: -Infinity }), "schema_violation");
    assert.deepEqual(err.body!.violations, [{
      path,
      keyword: "type",
      message: "must be a finite number (NaN and Infinity cannot be stored)",
    }]);
  }
  // A scalar has no depth of its own, but the containers its address makes do: four segments fit, five do not.
  await service.mutate("m", { "$.o.a.b.c": 1, "$.o.s": "x", "$.o.n": null, "$.o.t": true });
  assert.deepEqual(await service.getField("m", "$.o"), { a: { b: { c: 1 } }, s: "x", n: null, t: true });
  await rejectsWith(() => service.mutate("m", { "$.o.a.b.d.e": 1 }), "validation_failed", /max-depth \(4/);
  await rejectsWith(
    () => service.patch("m", [{ op: "add", path: "/o/a/b/d", value: { e: 1 } }]),
    "validation_failed",
    /max-depth \(4/,
  );
  // Nothing to refuse in a removal or a test at such a path: it writes nothing.
  await rejectsWith(
    () => service.patch("m", [{ op: "remove", path: "/o/a/b/c/d/e" }]),
    "validation_failed",
    /there is no value at the path/,
  );
  // Many segments of one address are refused at the door, not left for a recursive walk to overflow on.
  await rejectsWith(
    () => service.mutate("m", { ["$" + ".a".repeat(500)]: 1 }),
    "validation_failed",
    /max-depth/,
  );
  await rejectsWith(
    () => service.mutate("m", { ["$" + ".a".repeat(10_000)]: 1 }),
    "validation_failed",
    /at most 1024 characters/,
  );
  await rejectsWith(
    () => service.foldback("m", { ["$.o" + "[0]".repeat(5)]: 1 }),
    "validation_failed",
    /max-depth/,
  );
  assert.deepEqual(await service.getField("m", "$.o"), { a: { b: { c: 1 } }, s: "x", n: null, t: true });
});

Deno.test("a backfill counts its address's depth: nesting past svc.limits.max-depth is refused, nothing changes", async () => {
  const { service } = await serviceOf({ maxDepth: 8 });
  await service.createModel({ id: "m", schema: { type: "object" } });
  await service.mutate("m", { "$.x": 1 });
  // Five segments and four levels of value make nine; the evolution body alone is six levels deep.
  await rejectsWith(
    () =>
      service.evolveSpec("m", {
        newVersion: "1.0.1",
        backfill: { "$.b.a.a.a.a": { a: { a: { a: { a: 1 } } } } },
      }),
    "validation_failed",
    /The evolution's backfill value at \$\.b\.a\.a\.a\.a is nested deeper than svc\.limits\.max-depth \(8 levels\)/,
  );
  await rejectsWith(
    () => service.evolveSpec("m", { newVersion: "1.0.1", backfill: { ["$.b" + ".a".repeat(8)]: 1 } }),
    "validation_failed",
    /max-depth \(8 levels\)/,
  );
  assert.deepEqual(await service.getState("m"), { x: 1 });
  assert.equal((await service.getSpec("m")).version, "1.0.0");
  await service.evolveSpec("m", { newVersion: "1.0.1", backfill: { "$.b.a.a.a.a": { a: { a: { a: 1 } } } } });
  assert.deepEqual(await service.getField("m", "$.b.a.a.a.a"), { a: { a: { a: 1 } } });
  // One segment and seven levels make eight, however deep the evolution around them is.
  const seven = { a: { a: { a: { a: { a: { a: { a: 1 } } } } } } };
  await rejectsWith(
    () => service.evolveSpec("m", { newVersion: "1.0.2", backfill: { "$.c": { a: seven } } }),
    "validation_failed",
    /backfill value at \$\.c is nested deeper/,
  );
  await service.evolveSpec("m", { newVersion: "1.0.2", backfill: { "$.c": seven } });
  assert.deepEqual(await service.getField("m", "$.c"), seven);
});

Deno.test("a snapshot of a state at svc.limits.max-depth restores; a document in one is measured where it lands", async () => {
  const { service } = await serviceOf({ maxDepth: 5 });
  await service.createModel({
    id: "m",
    schema: { type: "object" },
    derivations: [{ path: "$.k.a.b", expr: "x ? {'c': {'d': x}}" }],
    metaDerivations: [{ path: "$.y", property: "enum", expr: "[[[[[x]]]]]" }],
  });
  // Five levels each: a written value, a derived one, a meta value.
  await service.mutate("m", { "$.b.a.b.c.d": 1, "$.x": 1 });
  const snapshot = await service.snapshot("m");
  await service.mutate("m", { "$.x": 2 });
  await service.restore("m", snapshot);
  assert.deepEqual(await service.getState("m"), {
    b: { a: { b: { c: { d: 1 } } } },
    x: 1,
    k: { a: { b: { c: { d: 1 } } } },
  });
  assert.deepEqual((await service.getSchema("m", "$.y")).enum, [[[[[1]]]]]);

  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = { d: deep };
  for (
    const [refused, message] of [
      [{ baseDoc: { b: { a: { b: { c: { d: { e: 1 } } } } } } }, /^The snapshot's baseDoc is nested deeper/],
      [{ junk: deep }, /^The snapshot is nested deeper than svc\.limits\.max-depth \(5 levels\)$/],
    ] as const
  ) {
    await rejectsWith(() => service.restore("m", { ...snapshot, ...refused }), "validation_failed", message);
  }
  await rejectsWith(() => service.restore("m", deep), "validation_failed", /^The snapshot is nested deeper/);
  assert.equal(await service.getField("m", "$.x"), 1);
});

Deno.test("a snapshot's caches are not walked: restore does not read them, so no size or depth of theirs costs anything", async () => {
  const { service } = await serviceOf({ maxDepth: 5 });
  await service.createModel({
    id: "m",
    schema: { type: "object" },
    derivations: [{ path: "$.t", expr: "x + 1" }],
  });
  await service.mutate("m", { "$.x": 1 });
  const snapshot = await service.snapshot("m");
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = { d: deep };
  // A member read by anything would throw; the depth check would refuse `deep`.
  const untouchable = Object.defineProperty({ "$.t": deep }, "$.u", {
    enumerable: true,
    get: () => {
      throw new Error("the cache was walked");
    },
  });
  await service.mutate("m", { "$.x": 2 });
  await service.restore("m", { ...snapshot, derivedCache: untouchable, metaCache: { "$.t#maximum": deep } });
  assert.deepEqual(await service.getState("m"), { x: 1, t: 2 });
  // Their shape is still checked: each must be an object.
  await rejectsWith(
    () => service.restore("m", { ...snapshot, derivedCache: [deep] }),
    "validation_failed",
    /^Snapshot derivedCache must be an object of address to value$/,
  );
});

Deno.test("a spec over svc.limits.max-spec-bytes is refused with 413", async () => {
  const { service } = await serviceOf({ maxSpecBytes: 2_000 });
  await rejectsWith(
    () => service.createModel({ ...spec, description: "d".repeat(3_000) }),
    "too_large",
    /max-spec-bytes \(2000\)/,
  );
  assert.deepEqual(await service.listModels(), []);
});

Deno.test("a replay at startup sees each write's commit time as $now()", async () => {
  const store = new LogStore();
  const { service, clock } = await serviceOf({}, { store });
  await service.createModel({
    id: "t",
    schema: { type: "object", properties: { n: { type: "number" } } },
    derivations: [{ path: "$.stamp", expr: "n & ' at ' & $now()" }],
  });
  clock.advance(60_000);
  await service.mutate("t", { "$.n": 1 });
  const before = await service.getState("t");
  clock.advance(3_600_000);
  const reopened = await ModelService.open({ store, config: service.config, platform: service.platform });
  assert.deepEqual(await reopened.getState("t"), before);
});

/** UTF-8 bytes of a value's JSON: what `svc.limits.max-state-bytes` limits. */
const utf8 = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

/** The error kind a write is refused with, or "accepted". */
async function verdict(write: () => Promise<unknown>): Promise<string> {
  try {
    await write();
    return "accepted";
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return err.kind;
  }
}

/** A patch through the service. */
const patch = (service: ModelService, ops: PatchOperation[]) => () => service.patch("m", ops);

Deno.test("max-state-bytes refuses at the first byte past it, counting created containers and commas", async () => {
  const spec = {
    id: "m",
    schema: {
      type: "object",
      properties: { p: { type: "object", additionalProperties: { type: "string" } }, n: { type: "integer" } },
    },
  };
  const { service } = await serviceOf({ maxStateBytes: 100 });
  await service.createModel(spec);
  // {"p":{"a":"…"}} is 14 bytes around the string: `p` is made by the write.
  assert.equal(await verdict(() => service.mutate("m", { "$.p.a": "x".repeat(87) })), "too_large");
  assert.equal(await verdict(() => service.mutate("m", { "$.p.a": "x".repeat(86) })), "accepted");
  assert.equal(utf8(await service.getState("m")), 100);
  assert.equal(await verdict(() => service.mutate("m", { "$.p.a": "x".repeat(87) })), "too_large");
  assert.equal(await verdict(() => service.mutate("m", { "$.n": 1 })), "too_large");
  assert.equal(await verdict(() => service.mutate("m", { "$.p.a": "x" })), "accepted");
  const room = 100 - utf8(await service.getState("m")) - ',"b":""'.length;
  assert.equal(await verdict(() => service.mutate("m", { "$.p.b": "é".repeat(room / 2 + 1) })), "too_large");
  assert.equal(await verdict(() => service.mutate("m", { "$.p.b": "y".repeat(room + 1) })), "too_large");
  assert.equal(await verdict(() => service.mutate("m", { "$.p.b": "y".repeat(room) })), "accepted");
  assert.equal(utf8(await service.getState("m")), 100);

  // Each element's comma counts, whether appended by a patch or written at the next index.
  const { service: lists } = await serviceOf({ maxStateBytes: 60 });
  await lists.createModel({ id: "m", schema: { type: "object" } });
  const appends = [
    () => patch(lists, [{ op: "add", path: "/a/-", value: 0 }]),
    (i: number) => () => lists.mutate("m", { [`$.a[${i}]`]: 0 }),
  ];
  for (const append of appends) {
    await lists.mutate("m", { "$.a": [] });
    let elements = 0;
    while (await verdict(append(elements)) === "accepted") elements++;
    // {"a":[0]} is 9 bytes, each further element 2: 25 more make 59, one more would make 61.
    assert.equal(elements, 26);
    assert.equal(utf8(await lists.getState("m")), 59);
  }
});

Deno.test("max-state-bytes counts the containers a deep address makes and what a patch move adds", async () => {
  const { service } = await serviceOf({ maxStateBytes: 1000 });
  await service.createModel({ id: "m", schema: { type: "object" } });
  // 608 bytes each: `"k0":` and 100 nested objects around a 0.
  const deep = (i: number) => ({ [`$.k${i}${".a".repeat(100)}`]: 0 });
  assert.equal(await verdict(() => service.mutate("m", deep(0))), "accepted");
  assert.equal(utf8(await service.getState("m")), 608);
  assert.equal(await verdict(() => service.mutate("m", deep(1))), "too_large");
  // A move to a longer name adds the difference.
  const move = (i: number) =>
    patch(service, [
      { op: "add", path: "/s", value: 1 },
      { op: "move", from: "/s", path: `/${String(i).padEnd(300, "k")}` },
    ]);
  assert.equal(await verdict(move(0)), "accepted");
  assert.equal(utf8(await service.getState("m")), 608 + 305);
  assert.equal(await verdict(move(1)), "too_large");
  assert.equal(utf8(await service.getState("m")), 913);
});

Deno.test("max-state-bytes refuses exactly the random writes whose result would pass it", async () => {
  const LIMIT = 250;
  const spec = { id: "m", schema: { type: "object" } };
  for (let seed = 1; seed <= 6; seed++) {
    const random = randomSource(seed);
    const { service } = await serviceOf({ maxStateBytes: LIMIT });
    await service.createModel(spec);
    // The same writes on a runtime with room to spare say what each would leave.
    const { runtime: mirror } = await runtimeOf(spec);
    for (let step = 0; step < 150; step++) {
      const write = randomWrite(random, mirror.state.doc);
      // Two addresses could pass the limit on the way and come back under it: one write at a time.
      if ("mutation" in write && Object.keys(write.mutation).length > 1) continue;
      let outcome: CycleOutcome | null = null;
      const expected = await verdict(async () => {
        outcome = "mutation" in write
          ? await mirror.evaluateMutation(write.mutation)
          : await mirror.evaluatePatch(write.patch);
      });
      const apply = "mutation" in write
        ? () => service.mutate("m", write.mutation)
        : patch(service, write.patch);
      const tooLarge = outcome !== null && utf8((outcome as CycleOutcome).state.doc) > LIMIT;
      const label = `seed ${seed}, step ${step}: ${JSON.stringify(write)}`;
      const got = await verdict(apply);
      if (tooLarge) assert.equal(got, "too_large", label);
      // A write refused for another reason may be refused for its size first.
      else if (expected !== "accepted") assert.ok([expected, "too_large"].includes(got), `${label}: ${got}`);
      else assert.equal(got, "accepted", label);
      if (outcome && !tooLarge) mirror.commit(outcome);
      assert.deepEqual(await service.getState("m"), mirror.state.doc, label);
    }
  }
});

Deno.test("a model written up to max-state-bytes takes growing writes within it after a restart", async () => {
  const store = new LogStore();
  const { service } = await serviceOf({ maxStateBytes: 1000 }, { store });
  await service.createModel({ id: "m", schema: { type: "object" } });
  await service.mutate("m", { [`$.k${".a".repeat(100)}`]: 0 });
  await service.patch("m", [{ op: "add", path: "/list", value: [] }]);
  while (await verdict(patch(service, [{ op: "add", path: "/list/-", value: 0.5 }])) === "accepted");
  const reopened = await ModelService.open({ store, config: service.config, platform: service.platform });
  assert.ok(utf8(await reopened.getState("m")) > 1000 - ",0.5".length);
  assert.equal(await verdict(() => reopened.mutate("m", { "$.k": 1 })), "accepted");
  const room = 1000 - utf8(await reopened.getState("m")) - ',"z":""'.length;
  assert.equal(await verdict(() => reopened.mutate("m", { "$.z": "z".repeat(room + 1) })), "too_large");
  assert.equal(await verdict(() => reopened.mutate("m", { "$.z": "z".repeat(room) })), "accepted");
  assert.equal(utf8(await reopened.getState("m")), 1000);
});

Deno.test("a write's, backfill's address or patch pointer (path, from) over 1024 characters is refused at the door", async () => {
  const { service } = await serviceOf();
  await service.createModel(spec);
  const long = `$.o.${"x".repeat(100_000)}`;
  const err = await rejectsWith(() => service.mutate("m", { [long]: 1 }), "validation_failed");
  assert.equal(
    err.message,
    "Invalid mutation path: an address is at most 1024 characters; this one has 100004",
  );
  const pointer = `/o/${"y".repeat(2000)}`;
  for (const op of [{ op: "add", path: pointer, value: 1 }, { op: "move", from: "/rate", path: pointer }]) {
    await rejectsWith(
      () => service.patch("m", [op] as PatchOperation[]),
      "validation_failed",
      /^Patch operation 0's path: an address is at most 1024 characters; this one has 2003$/,
    );
  }
  // A move's or copy's source is named in the audit record as its target is: held to the same limit.
  for (const op of ["move", "copy"]) {
    await rejectsWith(
      () => service.patch("m", [{ op, from: pointer, path: "/o/z" }] as PatchOperation[]),
      "validation_failed",
      /^Patch operation 0's from: an address is at most 1024 characters; this one has 2003$/,
    );
  }
  // A backfill's address is named as what it is, not as a mutation's.
  await rejectsWith(
    () => service.evolveSpec("m", { newVersion: "1.0.1", backfill: { [long]: 1 } }),
    "validation_failed",
    /^Invalid backfill path: an address is at most 1024 characters; this one has 100004$/,
  );
  // Up to the limit, as a spec's address.
  const fits = `$.o.${"x".repeat(1020)}`;
  assert.deepEqual((await service.mutate("m", { [fits]: 1 })).mutatedPaths, [fits]);
  assert.deepEqual(await service.getAudit("m").then((records) => records.length), 1);
});

Deno.test("a stored model over a lowered max-state-bytes is named at startup, once, with the limit and its size", async () => {
  const store = new LogStore();
  const { service } = await serviceOf({}, { store });
  await service.createModel({ id: "big", schema: { type: "object" } });
  await service.mutate("big", { "$.text": "x".repeat(2000) });
  await service.createModel({ id: "small", schema: { type: "object" } });
  const size = utf8(await service.getState("big"));
  const warnings: string[] = [];
  const reopened = await ModelService.open({
    store,
    config: { ...service.config, maxStateBytes: 1000 },
    platform: service.platform,
    observer: { warn: (message) => warnings.push(message) },
  });
  // Nothing said it before: the operator learnt of the lowered limit from a 413 on the next growing write.
  assert.deepEqual(warnings, [
    `model 'big': its stored state is ${size} bytes, over svc.limits.max-state-bytes (1000); it loads and ` +
    "reads as before, but a write that grows it is refused (413) until it shrinks below the limit or the limit is raised",
  ]);
  assert.equal(await verdict(() => reopened.mutate("big", { "$.more": 1 })), "too_large");
});
