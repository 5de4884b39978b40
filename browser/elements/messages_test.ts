import assert from "node:assert/strict";
import { constraintViolation, type ModelSpec, schemaViolation, ServiceError } from "../../engine/mod.ts";
import { canonical, type MessageMap, messagesOfError, placeConstraints } from "./messages.ts";
import { followRows, matchRows, moveOf, removal } from "./row_moves.ts";

const spec = {
  id: "m",
  schema: {},
  constraints: [{ id: "size", path: "$.parcels[*]", expr: "true", message: "too big", policy: "rollback" }],
} as unknown as ModelSpec;

Deno.test("a schema violation lands at its path", () => {
  const err = schemaViolation([{ path: "$.qty", keyword: "minimum", message: "must be >= 0" }]);
  assert.deepEqual([...messagesOfError(err, spec, ["$.qty"], [])], [["$.qty", [{
    text: "must be >= 0",
    severity: "error",
  }]]]);
});

Deno.test("a constraint lands at written fields under its path, else at the written field, else the form", () => {
  const size = constraintViolation([{ constraintId: "size", message: "too big", policy: "rollback" }]);
  assert.deepEqual([...messagesOfError(size, spec, ["$.parcels[1].weightKg"], []).keys()], [
    "$.parcels[1].weightKg",
  ]);
  const other = constraintViolation([{ constraintId: "cap", message: "over", policy: "rollback" }]);
  assert.deepEqual([...messagesOfError(other, spec, ["$.qty"], []).keys()], ["$.qty"]);
  assert.deepEqual([...messagesOfError(other, spec, [], []).keys()], [""]);
  assert.deepEqual([...messagesOfError(new Error("offline"), spec, [], []).entries()], [["", [{
    text: "offline",
    severity: "error",
  }]]]);
});

Deno.test("a shortened path or constraint id still finds its one field; several or none: the form, naming it", () => {
  const long = "x".repeat(300);
  const cut = `${"x".repeat(198)}… (302 characters)`;
  const violation = (path: string) => schemaViolation([{ path, keyword: "type", message: "must be number" }]);
  const at = (map: MessageMap) => Object.fromEntries([...map].map(([k, v]) => [k, v[0].text]));
  // The engine cut the path: written, or only bound (a row's field, in brackets), it lands at its field.
  assert.equal((violation(`$.${long}`).body!.violations as { path: string }[])[0].path, `$.${cut}`);
  assert.deepEqual(at(messagesOfError(violation(`$.${long}`), spec, [`$.${long}`, "$.qty"], [])), {
    [`$.${long}`]: "must be number",
  });
  const row = `$.rows[2]['${long} y']`;
  assert.equal(canonical(row), row, "as the engine writes it");
  assert.deepEqual(at(messagesOfError(violation(row), spec, [], ["$.qty", row])), {
    [row]: "must be number",
  });
  // Its row moved up meanwhile: it lands at the field of the row it went to.
  const moved = row.replace("[2]", "[0]");
  const upTwo = (a: string) => [a.replace("[2]", "[0]")];
  assert.deepEqual(at(messagesOfError(violation(row), spec, [], [moved, row], "error", upTwo)), {
    [moved]: "must be number",
  });
  // Two fields it may have been cut from, or none: the form tells which field.
  const twins = [`$.${long}a`, `$.${long}b`];
  assert.deepEqual(at(messagesOfError(violation(twins[0]), spec, [], twins)), {
    "": `$.${"x".repeat(198)}… (303 characters): must be number`,
  });
  // A constraint's shortened id still names its path: the message lands at the written field under it.
  const guarded = {
    ...spec,
    constraints: [{ id: long, path: "$.parcels[*]", expr: "true", message: "too big", policy: "rollback" }],
  } as unknown as ModelSpec;
  const refused = constraintViolation([{ constraintId: long, message: "too big", policy: "rollback" }]);
  assert.deepEqual(at(messagesOfError(refused, guarded, ["$.qty", "$.parcels[1].weightKg"], [])), {
    "$.parcels[1].weightKg": "too big",
  });
});

Deno.test("removing an array element drops its messages and moves up those of later elements", () => {
  const error = (text: string) => [{ text, severity: "error" as const }];
  const map: MessageMap = new Map([
    ["$.lines[0].n", error("zero")],
    ["$.lines[1].n", error("one")],
    ["$.lines[1]", error("one whole")],
    ["$.lines[2].d", error("two")],
    ["$.lines[12].d", error("twelve")],
    ["$.lines", error("list")],
    ["$.other[2].d", error("other")],
    ["", error("form")],
  ]);
  followRows(map, "$.lines", removal(1));
  assert.deepEqual(Object.fromEntries([...map].map(([k, v]) => [k, v[0].text])), {
    "$.lines[0].n": "zero",
    "$.lines[1].d": "two",
    "$.lines[11].d": "twelve",
    "$.lines": "list",
    "$.other[2].d": "other",
    "": "form",
  });
});

Deno.test("messages follow rows another writer removed and reordered, those of a gone row go", () => {
  const error = (text: string) => [{ text, severity: "error" as const }];
  const map: MessageMap = new Map([
    ["$.lines[0].n", error("a")],
    ["$.lines[1].n", error("b")],
    ["$.lines[2].d", error("c")],
    ["$.lines", error("list")],
  ]);
  // Rows a, b, c became c, a: b went, c moved to the top.
  followRows(map, "$.lines", moveOf(matchRows(["a", "b", "c"], ["c", "a"])));
  assert.deepEqual(Object.fromEntries([...map].map(([k, v]) => [k, v[0].text])), {
    "$.lines[0].d": "c",
    "$.lines[1].n": "a",
    "$.lines": "list",
  });
});

/** A refused write whose schema violation is of row 2, as the model checked it. */
const refusedAtRow2 = new ServiceError("schema_violation", "refused", {
  violations: [{ path: "$.lines[2].d", message: "must NOT have more than 3 characters" }],
});

Deno.test("messagesOfError: a violation's path follows its row when rows moved", () => {
  const moved = messagesOfError(
    refusedAtRow2,
    null,
    ["$.lines[1].d"],
    [],
    "error",
    (a) => [a.replace("[2]", "[1]")],
  );
  assert.deepEqual([...moved.keys()], ["$.lines[1].d"]);
});

Deno.test("messagesOfError: a violation of a row that is gone places no message", () => {
  assert.equal(messagesOfError(refusedAtRow2, null, [], [], "error", () => []).size, 0);
});

Deno.test("messagesOfError: without moves the violation's path is kept", () => {
  assert.deepEqual([...messagesOfError(refusedAtRow2, null, [], []).keys()], ["$.lines[2].d"]);
});

/** A model whose rule guards row 2's `n` (by index, as the model checks it). */
const thirdRow = {
  id: "m",
  schema: {},
  constraints: [{ id: "third", path: "$.lines[2].n", expr: "true", message: "at most 10", policy: "flag" }],
} as unknown as ModelSpec;
const third = [{ constraintId: "third", message: "at most 10", policy: "flag" as const }];
/** Rows moved up one since the model checked (row 0 went). */
const upOne = (a: string) => a.includes("[0]") ? [] : [a.replace("[2]", "[1]")];

Deno.test("placeConstraints: a rule's path follows its row when rows moved", () => {
  const map: MessageMap = new Map();
  const bound = ["$.lines[0].n", "$.lines[1].n", "$.lines[2].n"];
  placeConstraints(map, third, thirdRow, ["$.lines[1].n"], bound, "warning", upOne);
  assert.deepEqual([...map.keys()], ["$.lines[1].n"], "row 2 as checked is row 1 now, not the row now third");
  const refused = constraintViolation(third);
  assert.deepEqual([...messagesOfError(refused, thirdRow, [], bound, "error", upOne).keys()], [
    "$.lines[1].n",
  ]);
});

Deno.test("placeConstraints: a rule of a row that is gone goes to the written fields, or nowhere", () => {
  const gone = () => [];
  const atWritten: MessageMap = new Map();
  placeConstraints(atWritten, third, thirdRow, ["$.limit"], ["$.lines[0].n"], "error", gone);
  assert.deepEqual([...atWritten.keys()], ["$.limit"]);
  const nowhere: MessageMap = new Map();
  placeConstraints(nowhere, third, thirdRow, [], ["$.lines[0].n"], "error", gone);
  assert.equal(nowhere.size, 0);
  // A rule without a path still speaks to the form.
  const global: MessageMap = new Map();
  placeConstraints(global, [{ ...third[0], constraintId: "cap" }], thirdRow, [], [], "error", gone);
  assert.deepEqual([...global.keys()], [""]);
});

Deno.test("placeConstraints: a rule guarding several paths speaks at each bound field it guards", () => {
  const spec = {
    id: "m",
    schema: {},
    constraints: [{
      id: "range",
      path: ["$.from", "$.to"],
      expr: "true",
      message: "from after to",
      policy: "flag",
    }],
  } as unknown as ModelSpec;
  const violation = [{ constraintId: "range", message: "from after to", policy: "flag" as const }];
  const map: MessageMap = new Map();
  placeConstraints(map, violation, spec, ["$.note"], ["$.from", "$.to", "$.note"], "warning");
  assert.deepEqual([...map.keys()], ["$.from", "$.to"]);
  const refused = constraintViolation(violation);
  assert.deepEqual([...messagesOfError(refused, spec, ["$.to"], ["$.from", "$.to"]).keys()].sort(), [
    "$.from",
    "$.to",
  ]);
});

Deno.test("a refused write's rule is an error at the field written, a warning at one bound beside it", () => {
  const range = {
    id: "range",
    schema: {},
    constraints: [{
      id: "order",
      path: ["$.start", "$.end"],
      expr: "true",
      message: "bad",
      policy: "rollback",
    }],
  } as unknown as ModelSpec;
  const refused = constraintViolation([{ constraintId: "order", message: "bad", policy: "rollback" }]);
  const severities = (map: MessageMap) => Object.fromEntries([...map].map(([k, v]) => [k, v[0].severity]));
  assert.deepEqual(severities(messagesOfError(refused, range, ["$.end"], ["$.start", "$.end"])), {
    "$.end": "error",
    "$.start": "warning",
  });
  // A rule guarding the quantity refuses a price: the price, which shows the entry refused, says why too.
  const cap = {
    ...range,
    constraints: [{ id: "cap", path: "$.qty", expr: "true", message: "Total over 100", policy: "rollback" }],
  } as unknown as ModelSpec;
  const over = constraintViolation([{ constraintId: "cap", message: "Total over 100", policy: "rollback" }]);
  assert.deepEqual(severities(messagesOfError(over, cap, ["$.price"], ["$.qty", "$.price"])), {
    "$.qty": "warning",
    "$.price": "error",
  });
  // A schema violation under the field written (a row's member) is of the entry too.
  const row = schemaViolation([{ path: "$.lines[0].qty", keyword: "minimum", message: "must be >= 0" }]);
  assert.deepEqual(severities(messagesOfError(row, range, ["$.lines[0]"], [])), {
    "$.lines[0].qty": "error",
  });
});
