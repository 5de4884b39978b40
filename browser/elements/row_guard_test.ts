import assert from "node:assert/strict";
import { type Json, parsePath, ServiceError } from "../../engine/mod.ts";
import { getAt } from "../../engine/json/document.ts";
import { errorFromResponse } from "../../engine/operations/remote_error.ts";
import { isRowConflict, type ReadValue, rowOf, rowPatch, rowWrites } from "./row_guard.ts";

/** A field bound at `bind` showing `value`. */
const field = (bind: string, value?: Json) => ({ id: bind, type: "textField", bind, value });

/**
 * A view: a currency outside the rows, and the section list `lines` of rows `{n, d, total}` (total derived),
 * row 1 with a nested list `parts` of rows `{p}`, and a date range `from`/`to` per row.
 */
const VIEW = [
  field("$.currency", "EUR"),
  {
    id: "lines",
    type: "sectionList",
    bind: "$.lines",
    components: [0, 1].map((i) => ({
      id: `lines[${i}]`,
      type: "sectionItem",
      bind: `$.lines[${i}]`,
      components: [
        field(`$.lines[${i}].n`, i + 1),
        field(`$.lines[${i}].d`, i === 0 ? "a" : undefined),
        field(`$.lines[${i}].total`, 10),
        // A row's field may show something outside the row.
        field("$.currency", "EUR"),
        { id: "when", type: "dateRange", bindFrom: `$.lines[${i}].from`, valueFrom: "2026-01-01" },
        ...(i === 1
          ? [{
            id: "parts",
            type: "sectionList",
            bind: "$.lines[1].parts",
            components: [{
              id: "parts[0]",
              type: "sectionItem",
              bind: "$.lines[1].parts[0]",
              components: [field("$.lines[1].parts[0].p", "x"), field("$.lines[1].parts[0].box.q", "y")],
            }],
          }]
          : []),
      ],
    })),
  },
] as unknown as Json;

/** A {@link ReadValue} of `state`, counting its reads. */
function readerOver(state: Json): ReadValue & { reads: string[] } {
  const reads: string[] = [];
  const read = (address: string) => {
    reads.push(address);
    const parsed = parsePath(address);
    return Promise.resolve(parsed.ok ? getAt(state, parsed.path) : undefined);
  };
  return Object.assign(read, { reads });
}

/** The model's state as {@link VIEW} shows it (`total` derived, `note` not shown). */
const STATE = {
  currency: "EUR",
  lines: [
    { n: 1, d: "a", total: 10, from: "2026-01-01", note: "keep" },
    { n: 2, total: 10, from: "2026-01-01", parts: [{ p: "x", box: { q: "y" } }] },
  ],
} as Json;

/** The tests {@link rowPatch} puts before a write at `address` writing `own` (none read: what shows says enough). */
async function testsOf(address: string, own: string[], changing: string[]) {
  const read = readerOver(STATE);
  const tests = await rowPatch(VIEW, address, [], own, changing, read);
  assert.deepEqual(read.reads, [], "nothing is read");
  return tests;
}

Deno.test("a row's write tests the values the row shows, but those that may change meanwhile", async () => {
  assert.deepEqual(await testsOf("$.lines[0].n", ["$.lines[0].n"], ["$.lines[*].total"]), [
    { op: "test", path: "/lines/0/d", value: "a" },
    { op: "test", path: "/lines/0/from", value: "2026-01-01" },
  ]);
  // A value the row does not show (d of row 1) is not tested; nor is a write of this element under way.
  assert.deepEqual(await testsOf("$.lines[1].d", ["$.lines[1].d"], ["$.lines[1].from"]), [
    { op: "test", path: "/lines/1/n", value: 2 },
    { op: "test", path: "/lines/1/total", value: 10 },
    { op: "test", path: "/lines/1/parts/0/p", value: "x" },
    { op: "test", path: "/lines/1/parts/0/box/q", value: "y" },
  ]);
  // A nested row's write tests its outer row: an outer row moved makes the nested index another row's.
  assert.deepEqual(
    (await testsOf("$.lines[1].parts[0].p", ["$.lines[1].parts[0].p"], ["$.lines[*].total"])).map((t) =>
      t.path
    ),
    ["/lines/1/n", "/lines/1/from", "/lines/1/parts/0/box/q"],
  );
  // A Remove of a row tests the whole row.
  assert.equal((await testsOf("$.lines[0]", [], [])).length, 4);
  // Outside the rows nothing is tested.
  assert.deepEqual(await testsOf("$.currency", [], []), []);
});

Deno.test("a row's value is set by a patch after its tests, or by a mutation outside the rows", async () => {
  const read = readerOver(STATE);
  assert.deepEqual(await rowWrites(VIEW, [["$.lines[0].n", 5]], ["$.lines[*].total"], read), [
    { op: "test", path: "/lines/0/d", value: "a" },
    { op: "test", path: "/lines/0/from", value: "2026-01-01" },
    { op: "add", path: "/lines/0/n", value: 5 },
  ]);
  // A container below the row that shows a value exists: the patch writes into it.
  assert.deepEqual((await rowWrites(VIEW, [["$.lines[1].parts[0].box.r", 1]], [], read))?.at(-1), {
    op: "add",
    path: "/lines/1/parts/0/box/r",
    value: 1,
  });
  assert.deepEqual(read.reads, []);
  // An array element shown is replaced (an add would insert before it).
  const tags = oneRow([".tags[0]", "t"], [".name", "r"]);
  assert.deepEqual((await rowWrites(tags, [["$.rows[0].tags[0]", "u"]], [], read))?.at(-1), {
    op: "replace",
    path: "/rows/0/tags/0",
    value: "u",
  });
  assert.equal(await rowWrites(VIEW, [["$.currency", "USD"]], [], read), null);
});

/** A section list `$.rows` of one row showing `fields` (address within the row, value). */
const oneRow = (...fields: [string, Json | undefined][]) =>
  [{
    id: "rows",
    type: "sectionList",
    bind: "$.rows",
    components: [{
      id: "rows[0]",
      bind: "$.rows[0]",
      components: fields.map(([at, value]) => field(`$.rows[0]${at}`, value)),
    }],
  }] as unknown as Json;

/** Whether `promise` fails as a row conflict. */
const conflicts = (promise: Promise<unknown>) =>
  promise.then(() => false, (err) => isRowConflict(err) || Promise.reject(err));

Deno.test("a row that shows nothing else to test is read, must show what it showed, and is tested as read", async () => {
  // Every other value is changing (a write under way): the row as read, but that, is tested.
  const tags = oneRow([".tags[0]", "t"], [".name", "r"]);
  const read = readerOver({ rows: [{ name: "r", tags: ["t", "v"], id: 7 }] });
  assert.deepEqual(await rowWrites(tags, [["$.rows[0].name", "s"]], ["$.rows[0].tags"], read), [
    { op: "test", path: "/rows/0/name", value: "r" },
    { op: "test", path: "/rows/0/id", value: 7 },
    { op: "add", path: "/rows/0/name", value: "s" },
  ]);
  assert.deepEqual(read.reads, ["$.rows[0]"]);
  // A row showing only the field written: tested whole, members it does not show too.
  const name = oneRow([".name", "r"]);
  assert.deepEqual(await rowWrites(name, [["$.rows[0].name", "s"]], [], read), [
    { op: "test", path: "/rows/0", value: { name: "r", tags: ["t", "v"], id: 7 } },
    { op: "add", path: "/rows/0/name", value: "s" },
  ]);
  // The row read shows another value where it showed one (another writer moved rows), or is gone: a conflict.
  assert.equal(
    await conflicts(rowWrites(name, [["$.rows[0].name", "s"]], [], readerOver({ rows: [{ name: "q" }] }))),
    true,
  );
  assert.equal(
    await conflicts(rowWrites(name, [["$.rows[0].name", "s"]], [], readerOver({ rows: [] }))),
    true,
  );
  // A Remove of a field: the same.
  assert.deepEqual(
    await rowPatch(
      name,
      "$.rows[0].name",
      [{ op: "remove", path: "/rows/0/name" }],
      ["$.rows[0].name"],
      [],
      read,
    ),
    [
      { op: "test", path: "/rows/0", value: { name: "r", tags: ["t", "v"], id: 7 } },
      { op: "remove", path: "/rows/0/name" },
    ],
  );
});

Deno.test("a row that is a plain value tests that value, and is replaced", async () => {
  const words = [{
    id: "words",
    type: "sectionList",
    bind: "$.words",
    components: ["a", "b"].map((w, i) => ({
      id: `words[${i}]`,
      bind: `$.words[${i}]`,
      components: [field(`$.words[${i}]`, w)],
    })),
  }] as unknown as Json;
  assert.deepEqual(await rowWrites(words, [["$.words[1]", "bb"]], [], readerOver({ words: ["a", "b"] })), [
    { op: "test", path: "/words/1", value: "b" },
    { op: "replace", path: "/words/1", value: "bb" },
  ]);
  assert.equal(
    await conflicts(rowWrites(words, [["$.words[1]", "bb"]], [], readerOver({ words: ["b", "c"] }))),
    true,
  );
});

Deno.test("a value the row shows empty is absent or null in the row read, and null is tested", async () => {
  const row = oneRow([".a", undefined], [".b", "x"]);
  assert.deepEqual(
    await rowWrites(row, [["$.rows[0].b", "y"]], [], readerOver({ rows: [{ a: null, b: "x" }] })),
    [
      { op: "test", path: "/rows/0", value: { a: null, b: "x" } },
      { op: "add", path: "/rows/0/b", value: "y" },
    ],
  );
  assert.equal(
    await conflicts(rowWrites(row, [["$.rows[0].b", "y"]], [], readerOver({ rows: [{ a: 1, b: "x" }] }))),
    true,
  );
});

Deno.test("a write into a container the row may lack reads the row, and creates what is missing", async () => {
  // Row 0 has no `extra`: the patch adds it (as a mutation would), after testing the row (but its total).
  const read = readerOver(STATE);
  assert.deepEqual(await rowWrites(VIEW, [["$.lines[0].extra.x", 1]], ["$.lines[*].total"], read), [
    { op: "test", path: "/lines/0/n", value: 1 },
    { op: "test", path: "/lines/0/d", value: "a" },
    { op: "test", path: "/lines/0/from", value: "2026-01-01" },
    { op: "test", path: "/lines/0/note", value: "keep" },
    { op: "add", path: "/lines/0/extra", value: { x: 1 } },
  ]);
  // A container there is written into; a value that is none is replaced by one; an index past an array's end
  // would leave a hole: a mutation.
  const write = (row: Json, address: string) =>
    rowWrites(oneRow([".n", 1]), [[address, 2]], ["$.rows[0].n"], readerOver({ rows: [row] }));
  assert.deepEqual((await write({ n: 1, extra: { y: 1 } }, "$.rows[0].extra.x"))?.at(-1), {
    op: "add",
    path: "/rows/0/extra/x",
    value: 2,
  });
  assert.deepEqual((await write({ n: 1, extra: 5 }, "$.rows[0].extra.x"))?.at(-1), {
    op: "add",
    path: "/rows/0/extra",
    value: { x: 2 },
  });
  assert.deepEqual((await write({ n: 1, list: [5] }, "$.rows[0].list[0].x"))?.at(-1), {
    op: "replace",
    path: "/rows/0/list/0",
    value: { x: 2 },
  });
  assert.deepEqual((await write({ n: 1, list: [] }, "$.rows[0].list[0]"))?.at(-1), {
    op: "add",
    path: "/rows/0/list/0",
    value: 2,
  });
  assert.deepEqual((await write({ n: 1 }, "$.rows[0].list[0].x"))?.at(-1), {
    op: "add",
    path: "/rows/0/list",
    value: [{ x: 2 }],
  });
  assert.equal(await write({ n: 1 }, "$.rows[0].list[2].x"), null);
});

/**
 * Runs `act` with a browser's `Object.prototype.__proto__` (ECMAScript Annex B: assigning `__proto__` sets the
 * prototype), which Deno replaces by one that sets an own member, so that a plain assignment shows here too.
 */
async function withBrowserProto<T>(act: () => Promise<T>): Promise<T> {
  const deno = Object.getOwnPropertyDescriptor(Object.prototype, "__proto__")!;
  Object.defineProperty(Object.prototype, "__proto__", {
    configurable: true,
    get(this: object) {
      return Object.getPrototypeOf(this);
    },
    set(this: object, proto: unknown) {
      if (typeof proto === "object") Object.setPrototypeOf(this, proto);
    },
  });
  try {
    return await act();
  } finally {
    Object.defineProperty(Object.prototype, "__proto__", deno);
  }
}

Deno.test("a row's writes see a __proto__ member as data: one the row holds, one a write creates", async () => {
  // JSON.parse makes `__proto__` an own member; a later write then needs the member an earlier one created.
  const row = JSON.parse('{"n": 1, "__proto__": {"k": 1}, "box": {}}');
  const writes: [string, Json][] = [
    ["$.rows[0]['__proto__'].k", 2],
    ["$.rows[0].box['__proto__']", { x: 1 }],
    ["$.rows[0].box['__proto__'].y", 2],
  ];
  const ops = await withBrowserProto(() =>
    rowWrites(oneRow([".n", 1]), writes, ["$.rows[0].n"], readerOver({ rows: [row] }))
  );
  assert.deepEqual(ops?.filter((op) => op.op !== "test"), [
    { op: "add", path: "/rows/0/__proto__/k", value: 2 },
    { op: "add", path: "/rows/0/box/__proto__", value: { x: 1 } },
    // Into the member the write before created (set as a prototype, it would be missing: a second `add` of it).
    { op: "add", path: "/rows/0/box/__proto__/y", value: 2 },
  ]);
  assert.deepEqual(ops?.find((op) => op.path === "/rows/0/__proto__"), {
    op: "test",
    path: "/rows/0/__proto__",
    value: { k: 1 },
  });
  assert.equal(({} as Record<string, unknown>).x, undefined, "no prototype was polluted");
});

Deno.test("a handler's writes into one row go as one patch after the row's tests, else as a mutation", async () => {
  const read = readerOver(STATE);
  // Neither written value is tested.
  assert.deepEqual(
    await rowWrites(VIEW, [["$.lines[0].n", 5], ["$.lines[0].d", "b"]], ["$.lines[*].total"], read),
    [
      { op: "test", path: "/lines/0/from", value: "2026-01-01" },
      { op: "add", path: "/lines/0/n", value: 5 },
      { op: "add", path: "/lines/0/d", value: "b" },
    ],
  );
  assert.deepEqual(read.reads, []);
  // A write outside the first one's row (another row, or none) makes it a mutation.
  assert.equal(await rowWrites(VIEW, [["$.lines[0].n", 5], ["$.lines[1].n", 6]], [], read), null);
  assert.equal(await rowWrites(VIEW, [["$.lines[0].n", 5], ["$.currency", "USD"]], [], read), null);
  assert.equal(await rowWrites(VIEW, [], [], read), null);
  // A container the row may lack: the row is read; the first write creates it, the next writes into it.
  assert.deepEqual(
    await rowWrites(VIEW, [["$.lines[0].extra.x", 1], ["$.lines[0].extra.y", 2]], ["$.lines[*].total"], read),
    [
      { op: "test", path: "/lines/0/n", value: 1 },
      { op: "test", path: "/lines/0/d", value: "a" },
      { op: "test", path: "/lines/0/from", value: "2026-01-01" },
      { op: "test", path: "/lines/0/note", value: "keep" },
      { op: "add", path: "/lines/0/extra", value: { x: 1 } },
      { op: "add", path: "/lines/0/extra/y", value: 2 },
    ],
  );
  assert.deepEqual(read.reads, ["$.lines[0]"]);
  // The row holding an address, outermost.
  assert.equal(rowOf(VIEW, "$.lines[1].parts[0].p"), "$.lines[1]");
  assert.equal(rowOf(VIEW, "$.currency"), undefined);
});

Deno.test("a failed row test is told from other refusals, in the tab and from a server", async () => {
  const failed = "Patch operation 0 (test /lines/2/d): Test operation failed";
  assert.equal(isRowConflict(new ServiceError("conflict", failed)), true);
  assert.equal(
    isRowConflict(await errorFromResponse(409, "Conflict", JSON.stringify({ detail: failed }))),
    true,
  );
  assert.equal(isRowConflict(new ServiceError("constraint_violation", "Constraint violation")), false);
  assert.equal(isRowConflict(new Error("Test operation failed")), false);
});
