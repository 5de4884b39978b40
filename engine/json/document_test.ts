import assert from "node:assert/strict";
import type { Segment } from "./path.ts";
import {
  type CreatedContainers,
  DocumentDraft,
  DocumentTooLargeError,
  expandPattern,
  getAt,
} from "./document.ts";
import type { Json } from "./value.ts";
import { isWide, WIDE_MEMBERS } from "./wide_object.ts";
import { withBrowserProtoAccessor } from "../_test_utils.ts";
import { presentPath, randomPath, randomSource, randomValue } from "./test_support.ts";

const W = -1;

Deno.test("getAt reads concrete paths and answers undefined for absent or mismatched ones", () => {
  const doc = { a: { b: [10, { c: 1 }] }, n: null };
  assert.equal(getAt(doc, ["a", "b", 1, "c"]), 1);
  assert.equal(getAt(doc, ["a", "b", 0]), 10);
  assert.deepEqual(getAt(doc, []), doc);
  assert.equal(getAt(doc, ["n"]), null);
  assert.equal(getAt(doc, ["n", "x"]), undefined);
  assert.equal(getAt(doc, ["a", "b", "0"]), undefined, "a member name does not index an array");
  assert.equal(getAt(doc, ["a", 0]), undefined, "an index does not name an object member");
  assert.equal(getAt(doc, ["a", "b", 5]), undefined);
  assert.equal(getAt(doc, ["toString"]), undefined, "inherited members are not data");
});

Deno.test("expandPattern lists every concrete path of a pattern, optionally within a prefix", () => {
  const doc: Json = { items: [{ tags: ["x", "y"] }, { tags: ["z"] }, {}] };
  assert.deepEqual(expandPattern(doc, ["items", W]), [["items", 0], ["items", 1], ["items", 2]]);
  assert.deepEqual(expandPattern(doc, ["items", W, "tags", W]), [
    ["items", 0, "tags", 0],
    ["items", 0, "tags", 1],
    ["items", 1, "tags", 0],
  ]);
  assert.deepEqual(expandPattern(doc, ["items", W, "total"]), [
    ["items", 0, "total"],
    ["items", 1, "total"],
    ["items", 2, "total"],
  ]);
  assert.deepEqual(expandPattern(doc, ["items", W], ["items", 1]), [["items", 1]]);
  assert.deepEqual(expandPattern(doc, ["items", W], ["items", 7]), []);
  assert.deepEqual(expandPattern(doc, ["missing", W]), []);
  assert.deepEqual(expandPattern({ items: {} }, ["items", W]), []);
});

Deno.test("DocumentDraft never modifies the committed document (copy-on-write)", () => {
  const committed: Json = Object.freeze({
    a: Object.freeze({ b: 1 }),
    other: Object.freeze({ x: 1 }),
  }) as Json;
  const draft = new DocumentDraft(committed);
  draft.set(["a", "b"], 2);
  draft.set(["a", "c"], 3);
  assert.deepEqual(committed, { a: { b: 1 }, other: { x: 1 } });
  assert.deepEqual(draft.root, { a: { b: 2, c: 3 }, other: { x: 1 } });
  assert.equal(
    (draft.root as Record<string, Json>).other,
    (committed as Record<string, Json>).other,
    "untouched containers are shared",
  );
});

Deno.test("DocumentDraft.set creates missing containers and reports them", () => {
  const draft = new DocumentDraft({});
  const created: CreatedContainers = [];
  draft.set(["order", "items", 1, "qty"], 5, created);
  assert.deepEqual(draft.root, { order: { items: [null, { qty: 5 }] } });
  assert.deepEqual(created, [["order"], ["order", "items"], ["order", "items", 1]]);
  const more: CreatedContainers = [];
  draft.set(["order", "customer"], { name: "x" }, more);
  assert.deepEqual(more, [["order", "customer"]], "a written container value counts as created");
  const replaced: CreatedContainers = [];
  draft.set(["order", "items"], [{ qty: 1 }, 2, { more: [] }], replaced);
  assert.deepEqual(
    replaced,
    [["order", "items"], ["order", "items", 0], ["order", "items", 2], ["order", "items", 2, "more"]],
    "a written container is new as a whole, also where one was before",
  );
  const scalar: CreatedContainers = [];
  draft.set(["order", "items", 0, "qty"], 3, scalar);
  assert.deepEqual(scalar, [], "a scalar written into existing containers creates nothing");
});

Deno.test("DocumentDraft.set on a non-container root starts a fresh document", () => {
  const draft = new DocumentDraft(null);
  const created: Segment[][] = [];
  draft.set(["a"], 1, created);
  assert.deepEqual(draft.root, { a: 1 });
  assert.deepEqual(created, [[]]);
  const whole = new DocumentDraft({ old: true });
  whole.set([], { fresh: true });
  assert.deepEqual(whole.root, { fresh: true });
});

Deno.test("DocumentDraft.delete removes members and array elements (shifting)", () => {
  const committed = { a: 1, list: [1, 2, 3] };
  const draft = new DocumentDraft(committed);
  assert.equal(draft.delete(["a"]), true);
  assert.equal(draft.delete(["missing"]), false);
  assert.equal(draft.delete(["list", 0]), true);
  assert.deepEqual(draft.root, { list: [2, 3] });
  assert.deepEqual(committed, { a: 1, list: [1, 2, 3] });
});

Deno.test("DocumentDraft.prepare copies the containers along a path for in-place editors", () => {
  const committed = { a: { b: { c: 1 } } };
  const draft = new DocumentDraft(committed);
  draft.prepare(["a", "b"]);
  (draft.root as { a: { b: { c: number } } }).a.b.c = 2;
  assert.equal(committed.a.b.c, 1);
  assert.equal(draft.get(["a", "b", "c"]), 2);
});

Deno.test("DocumentDraft writes a __proto__ member as data under a browser's accessor, wide objects too", async () => {
  const wide: Record<string, Json> = {};
  for (let i = 0; i <= WIDE_MEMBERS; i++) wide[`m${i}`] = i;
  const draft = new DocumentDraft({ wide });
  draft.set(["wide", "m0"], 0); // makes the member a wide version
  await withBrowserProtoAccessor(() => {
    draft.set(["o", "__proto__"], { x: 1 });
    draft.set(["q", "__proto__", "r"], [true]);
    draft.set(["wide", "__proto__"], "w");
    draft.set(["o", "__proto__", "x"], 2);
  });
  const root = draft.root as Record<string, Record<string, Json>>;
  assert.equal(JSON.stringify(root.o), '{"__proto__":{"x":2}}');
  assert.equal(JSON.stringify(root.q), '{"__proto__":{"r":[true]}}');
  assert.equal(Object.getPrototypeOf(root.o), Object.prototype);
  assert.equal(Object.getPrototypeOf(root.q), Object.prototype);
  assert.equal(draft.get(["wide", "__proto__"]), "w");
  assert.equal(draft.get(["o", "x"]), undefined);
  assert.equal(draft.delete(["o", "__proto__"]), true);
  assert.deepEqual(Object.keys(root.o), []);
});

Deno.test("an object a draft grows past WIDE_MEMBERS members becomes wide, with the same members in order", () => {
  // A plain object grown by thousands of writes made each write cost what it held (a 2,000-field
  // write took seconds): the comma check of a new member enumerated every member of it.
  const cases: [Json, Segment[]][] = [[{}, []], [{ o: { a: 0 } }, ["o"]], [{ list: [{}] }, ["list", 0]]];
  for (const [root, at] of cases) {
    const draft = new DocumentDraft(root);
    const count = WIDE_MEMBERS * 2;
    for (let i = 0; i < count; i++) draft.set([...at, `m${i}`], i);
    draft.set([...at, "m0"], "again");
    const grown = getAt(draft.root, at);
    assert.ok(isWide(grown), JSON.stringify(at));
    const expected = Object.fromEntries([...Array(count).keys()].map((i) => [`m${i}`, i ? i : "again"]));
    assert.deepEqual(JSON.parse(JSON.stringify(grown)), {
      ...getAt(root, at) as object,
      ...expected,
    });
    assert.equal(draft.growth, JSON.stringify(draft.root).length - JSON.stringify(root).length);
  }
  const small = new DocumentDraft({});
  for (let i = 0; i < WIDE_MEMBERS; i++) small.set([`m${i}`], i);
  assert.ok(!isWide(small.root), "at most WIDE_MEMBERS members stay plain");
});

Deno.test("a draft's growth is the exact change in JSON bytes, member names with escapes included", () => {
  const bytes = (value: Json) => new TextEncoder().encode(JSON.stringify(value)).length;
  const names = ["plain", "\u0001".repeat(50), 'quote"back\\slash', "é€😀", "\ud800"];
  for (const name of names) {
    const root: Json = { a: 1 };
    const draft = new DocumentDraft(root);
    draft.set([name], "v");
    assert.equal(draft.growth, bytes(draft.root) - bytes(root), JSON.stringify(name));
    draft.delete([name]);
    assert.equal(draft.growth, 0, `${JSON.stringify(name)} removed`);
  }
});

Deno.test("a draft's growth is exactly the change in JSON bytes after every write, delete and new draft", () => {
  const utf8 = (value: Json) => new TextEncoder().encode(JSON.stringify(value)).length;
  for (let seed = 1; seed <= 40; seed++) {
    const random = randomSource(seed);
    const wide: Record<string, Json> = {};
    for (let i = 0; i <= WIDE_MEMBERS + 2; i++) wide[`m${i}`] = i;
    let committed: Json = { wide, list: [1, "two"] };
    let bytes = utf8(committed);
    for (let cycle = 0; cycle < 30; cycle++) {
      const draft: DocumentDraft = new DocumentDraft(committed);
      for (let step = 0; step < 8; step++) {
        const kind = random(20);
        let done: string;
        if (kind < 12) {
          const path = randomPath(random, draft.root);
          draft.set(kind === 0 ? [] : path, randomValue(random));
          done = `set ${JSON.stringify(kind === 0 ? [] : path)}`;
        } else if (kind < 14) {
          const path = random(3) ? ["wide", `m${random(WIDE_MEMBERS + 9)}`] : ["wide"];
          draft.set(path, random(3) ? randomValue(random) : wide);
          done = `set ${JSON.stringify(path)}`;
        } else {
          const path = kind === 19
            ? randomPath(random, draft.root)
            : kind === 18
            ? []
            : presentPath(random, draft.root);
          draft.delete(path);
          done = `delete ${JSON.stringify(path)}`;
        }
        assert.equal(bytes + draft.growth, utf8(draft.root), `seed ${seed}, cycle ${cycle}: ${done}`);
      }
      committed = draft.root;
      bytes = utf8(committed);
    }
  }
});

Deno.test("a draft's budget refuses a write at the first byte past it, counting what the path makes", () => {
  const utf8 = (value: Json) => new TextEncoder().encode(JSON.stringify(value)).length;
  const cases: [Json, Segment[], Json][] = [
    [{}, ["p", "a"], "x".repeat(10)],
    [{}, ["k", "a", "a", "a"], 0],
    [{ a: [] }, ["a", 3], 0],
    [{ a: [1] }, ["a", 1], 0.5],
    [{ a: 5 }, ["a", "b"], true],
    [{ a: { b: 1 } }, ["a", "é"], "€"],
    [{ a: { b: 1 } }, ["a", 0], "an array in place of the object"],
    [{ a: [1, 2] }, ["a", "n"], 1],
  ];
  for (const [root, path, value] of cases) {
    const grown = new DocumentDraft(root);
    grown.set(path, value);
    const growth = utf8(grown.root) - utf8(root);
    assert.equal(grown.growth, growth, JSON.stringify([root, path]));
    new DocumentDraft(root, growth).set(path, value);
    assert.throws(
      () => new DocumentDraft(root, growth - 1).set(path, value),
      (err: unknown) => err instanceof DocumentTooLargeError && err.growth === growth,
      JSON.stringify([root, path]),
    );
  }
});
