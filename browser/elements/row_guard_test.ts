import assert from "node:assert/strict";
import { type Json, ServiceError } from "../../engine/mod.ts";
import { errorFromResponse } from "../../engine/operations/remote_error.ts";
import { isRowConflict, rowOf, rowTests, rowWrite, rowWrites } from "./row_guard.ts";

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

Deno.test("a row's write tests the values the row shows, but those that may change meanwhile", () => {
  assert.deepEqual(rowTests(VIEW, "$.lines[0].n", ["$.lines[0].n", "$.lines[*].total"]), [
    { op: "test", path: "/lines/0/d", value: "a" },
    { op: "test", path: "/lines/0/from", value: "2026-01-01" },
  ]);
  // A value the row does not show (d of row 1) is not tested; nor is a write of this element under way.
  assert.deepEqual(rowTests(VIEW, "$.lines[1].d", ["$.lines[1].d", "$.lines[1].from"]), [
    { op: "test", path: "/lines/1/n", value: 2 },
    { op: "test", path: "/lines/1/total", value: 10 },
    { op: "test", path: "/lines/1/parts/0/p", value: "x" },
    { op: "test", path: "/lines/1/parts/0/box/q", value: "y" },
  ]);
  // A nested row's write tests its outer row: an outer row moved makes the nested index another row's.
  assert.deepEqual(
    rowTests(VIEW, "$.lines[1].parts[0].p", ["$.lines[1].parts[0].p", "$.lines[*].total"]).map((t) => t.path),
    ["/lines/1/n", "/lines/1/from", "/lines/1/parts/0/box/q"],
  );
  // A Remove of a row tests the whole row.
  assert.equal(rowTests(VIEW, "$.lines[0]", []).length, 4);
  // Outside the rows nothing is tested.
  assert.deepEqual(rowTests(VIEW, "$.currency", []), []);
});

Deno.test("a row's value is set by a patch after its tests, or by a mutation when there is nothing to test", () => {
  assert.deepEqual(rowWrite(VIEW, "$.lines[0].n", 5, ["$.lines[*].total"]), [
    { op: "test", path: "/lines/0/d", value: "a" },
    { op: "test", path: "/lines/0/from", value: "2026-01-01" },
    { op: "add", path: "/lines/0/n", value: 5 },
  ]);
  // A container below the row that shows a value exists: the patch writes into it.
  assert.deepEqual(rowWrite(VIEW, "$.lines[1].parts[0].box.r", 1, [])?.at(-1), {
    op: "add",
    path: "/lines/1/parts/0/box/r",
    value: 1,
  });
  // A container not known to exist would be created by a mutation, not by a patch's add.
  assert.equal(rowWrite(VIEW, "$.lines[0].extra.x", 1, []), null);
  // An array element shown is replaced (an add would insert before it).
  const tags = [{
    id: "rows",
    type: "sectionList",
    bind: "$.rows",
    components: [{
      id: "rows[0]",
      bind: "$.rows[0]",
      components: [field("$.rows[0].tags[0]", "t"), field("$.rows[0].name", "r")],
    }],
  }] as unknown as Json;
  assert.deepEqual(rowWrite(tags, "$.rows[0].tags[0]", "u", [])?.at(-1), {
    op: "replace",
    path: "/rows/0/tags/0",
    value: "u",
  });
  // Nothing else to test (every other value is changing): a mutation.
  assert.equal(rowWrite(tags, "$.rows[0].name", "s", ["$.rows[0].tags"]), null);
  assert.equal(rowWrite(VIEW, "$.currency", "USD", []), null);
});

Deno.test("a handler's writes into one row go as one patch after the row's tests, else as a mutation", () => {
  // Neither written value is tested.
  assert.deepEqual(rowWrites(VIEW, [["$.lines[0].n", 5], ["$.lines[0].d", "b"]], ["$.lines[*].total"]), [
    { op: "test", path: "/lines/0/from", value: "2026-01-01" },
    { op: "add", path: "/lines/0/n", value: 5 },
    { op: "add", path: "/lines/0/d", value: "b" },
  ]);
  // A write outside the first one's row (another row, or none) makes it a mutation, as one that cannot be a patch.
  assert.equal(rowWrites(VIEW, [["$.lines[0].n", 5], ["$.lines[1].n", 6]], []), null);
  assert.equal(rowWrites(VIEW, [["$.lines[0].n", 5], ["$.currency", "USD"]], []), null);
  assert.equal(rowWrites(VIEW, [["$.lines[0].n", 5], ["$.lines[0].extra.x", 1]], []), null);
  assert.equal(rowWrites(VIEW, [], []), null);
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
