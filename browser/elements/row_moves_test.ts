import assert from "node:assert/strict";
import {
  fieldsIn,
  fingerprint,
  followAddress,
  followIds,
  followKeys,
  followLists,
  followRows,
  matchRows,
  moveOf,
  removal,
  RowMoveLog,
  unmoved,
} from "./row_moves.ts";

Deno.test("rows are found again by what they show: removed, added, reordered, duplicated", () => {
  assert.deepEqual(matchRows(["a", "b", "c"], ["a", "c"]), [0, -1, 1]);
  assert.deepEqual(matchRows(["a", "b", "c"], ["c", "a", "b"]), [1, 2, 0]);
  assert.deepEqual(matchRows(["a", "b"], ["x", "a", "b"]), [1, 2]);
  assert.deepEqual(matchRows(["a", "a", "b"], ["a", "b"]), [0, -1, 1]);
  assert.deepEqual(matchRows([], ["a"]), []);
});

Deno.test("a row whose values changed stays between the rows around it, or is gone when there is no room", () => {
  // b edited in place.
  assert.deepEqual(matchRows(["a", "b", "c"], ["a", "B", "c"]), [0, 1, 2]);
  // b removed and d edited: d's row is not taken for b.
  assert.deepEqual(matchRows(["a", "b", "c", "d"], ["a", "c", "D"]), [0, -1, 1, 2]);
  // Every row changed: they stay where they were, the last ones go.
  assert.deepEqual(matchRows(["a", "b", "c"], ["x", "y"]), [0, 1, -1]);
});

Deno.test("a row the element is writing is found again without the fields it writes", () => {
  const row = (at: string, n: number, d: string) => fingerprint(at, [[`${at}.n`, n], [`${at}.d`, d]]);
  const before = ["a", "b", "c", "d"].map((d, i) => row(`$.lines[${i}]`, i + 1, d));
  // Another writer moved row c, whose d the element wrote, to the top and removed row a.
  const after = [row("$.lines[0]", 3, "cc"), row("$.lines[1]", 2, "b"), row("$.lines[2]", 4, "d")];
  const writing = ["$.lines[2].d"];
  assert.deepEqual(matchRows(before, after, (i) => fieldsIn(writing, `$.lines[${i}]`)), [-1, 1, 0, 2]);
  // Without knowing it, row c is gone and row a takes its place.
  assert.deepEqual(matchRows(before, after), [0, 1, -1, 2]);
  // A field's name that begins like another's is another field; a nested field is the field's.
  assert.deepEqual(
    fieldsIn(["$.lines[2].d", "$.lines[2].dd[0]", "$.lines[20].d", "$.lines[2]"], "$.lines[2]"),
    [
      ".d",
      ".dd[0]",
      "",
    ],
  );
});

Deno.test("unmoved: every row where it was", () => {
  assert.equal(unmoved([0, 1]), true);
  assert.equal(unmoved([0, -1]), false);
  assert.equal(unmoved([1, 0]), false);
});

Deno.test("an address follows its row: under it moved, gone with it, elsewhere unchanged", () => {
  const move = moveOf([0, -1, 1]);
  assert.equal(followAddress("$.lines[2].n", "$.lines", move), "$.lines[1].n");
  assert.equal(followAddress("$.lines[2]", "$.lines", move), "$.lines[1]");
  assert.equal(followAddress("$.lines[1].n", "$.lines", move), null);
  assert.equal(followAddress("$.lines[5].n", "$.lines", move), null, "past the rows known");
  assert.equal(followAddress("$.lines", "$.lines", move), "$.lines");
  assert.equal(followAddress("$.other[2].n", "$.lines", move), "$.other[2].n");
  assert.equal(followAddress("$.lines[2].n", "$.orders[0].lines", move), "$.lines[2].n");
  assert.equal(followAddress("$['lines'][2].n", "$.lines", move), "$.lines[1].n", "canonical either way");
});

Deno.test("a map by address follows the rows, nested lists' entries too", () => {
  const keys = new Map([
    ["$.orders", [1, 2, 3]],
    ["$.orders[0].lines", [4]],
    ["$.orders[1].lines", [5]],
    ["$.orders[2].lines", [6, 7]],
  ]);
  followRows(keys, "$.orders", removal(1));
  assert.deepEqual(Object.fromEntries(keys), {
    "$.orders": [1, 2, 3],
    "$.orders[0].lines": [4],
    "$.orders[1].lines": [6, 7],
  });
});

Deno.test("UI state by component id follows the rows of its list, nested lists' too; other ids stay", () => {
  const state = new Map([
    ["lines[0].tabs:tab", 1],
    ["lines[2].tabs:tab", 2],
    ["lines[2].items[1].table:page", 3],
    ["lines:page", 4],
    ["lines2[2].tabs:tab", 5],
    ["other[2].tabs:tab", 6],
  ]);
  followIds(state, "lines", moveOf([-1, 0, 1]));
  assert.deepEqual(Object.fromEntries(state), {
    "lines[1].tabs:tab": 2,
    "lines[1].items[1].table:page": 3,
    "lines:page": 4,
    "lines2[2].tabs:tab": 5,
    "other[2].tabs:tab": 6,
  });
});

Deno.test("the log brings an address of an earlier render up to date, or says its row is gone", () => {
  const log = new RowMoveLog();
  const seen = log.count;
  assert.equal(log.follow("$.lines[2].n", seen), "$.lines[2].n");
  log.record("$.lines", removal(0));
  log.record("$.lines", moveOf([1, 0]));
  assert.equal(log.follow("$.lines[2].n", seen), "$.lines[0].n");
  assert.equal(log.follow("$.lines[1].n", seen), "$.lines[1].n");
  assert.equal(log.follow("$.lines[0].n", seen), null);
  assert.equal(log.follow("$.lines[0].n", log.count), "$.lines[0].n", "a current render's address stays");
  assert.deepEqual(log.followRow("$.lines", 2, seen), { list: "$.lines", index: 0 });
  assert.equal(log.followRow("$.lines", 0, seen), null);
  for (let i = 0; i < RowMoveLog.LIMIT; i++) log.record("$.other", removal(9));
  assert.equal(log.follow("$.lines[1].n", seen), null, "too old to tell");
});

Deno.test("row keys stay with their rows; added rows get new keys", () => {
  let last = 10;
  const fresh = () => ++last;
  assert.deepEqual(followKeys([1, 2, 3], removal(1), fresh), [1, 3]);
  assert.deepEqual(followKeys([1, 2, 3], moveOf([3, 0, 1]), fresh), [2, 3, 11, 1]);
});

Deno.test("lists are followed outer first: a nested list is compared under its row's new index", () => {
  const before = new Map([
    ["$.orders", ["a", "b"]],
    ["$.orders[0].lines", ["x"]],
    ["$.orders[1].lines", ["y", "z"]],
    ["$.other", ["o"]],
  ]);
  const after = new Map([
    ["$.orders", ["b"]],
    ["$.orders[0].lines", ["z"]],
    ["$.other", ["o"]],
  ]);
  const seen: [string, number[]][] = [];
  followLists(before, after, (list, move) => seen.push([list, [0, 1, 2].map(move)]));
  assert.deepEqual(seen, [
    ["$.orders", [-1, 0, -1]],
    ["$.orders[0].lines", [-1, 0, -1]],
  ]);
  assert.equal(before.size, 4, "the lists given stay as they were");
});

Deno.test("a nested row the element is writing is found again once its outer row moved", () => {
  const print = (row: string, d: string) => fingerprint(row, [[`${row}.d`, d]]);
  const before = new Map([
    ["$.orders", [print("$.orders[0]", "a"), print("$.orders[1]", "b")]],
    ["$.orders[1].lines", ["x", "y", "z"].map((d, i) => print(`$.orders[1].lines[${i}]`, d))],
  ]);
  // Another writer removed order a and lines x and z; line y shows the element's write (line x would take its
  // place otherwise).
  const after = new Map([
    ["$.orders", [print("$.orders[0]", "b")]],
    ["$.orders[0].lines", [print("$.orders[0].lines[0]", "yy")]],
  ]);
  // The addresses written follow each move, as the element's do.
  let writing = ["$.orders[1].lines[1].d"];
  const seen: [string, number[]][] = [];
  followLists(before, after, (list, move) => {
    seen.push([list, [0, 1, 2].map(move)]);
    writing = writing.map((a) => followAddress(a, list, move) ?? a);
  }, () => writing);
  assert.deepEqual(seen, [
    ["$.orders", [-1, 0, -1]],
    ["$.orders[0].lines", [-1, 0, -1]],
  ]);
});
