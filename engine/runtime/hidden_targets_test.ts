import assert from "node:assert/strict";
import { WILDCARD } from "../json/path.ts";
import type { Json, JsonObject } from "../json/value.ts";
import { toWide } from "../json/wide_object.ts";
import { withoutTargets } from "./hidden_targets.ts";

Deno.test("hidden targets are left out, objects they leave empty too, array elements stay in place", () => {
  const items: Json[] = [{ p: 1, sub: { t: 1 } }, { p: 2 }, { sub: { t: 3 } }];
  const doc: JsonObject = {
    a: 1,
    x: 2,
    t: { net: 3 },
    u: { net: 4, note: "n" },
    items,
  };
  const hidden = [["x"], ["t", "net"], ["u", "net"], ["items", WILDCARD, "sub", "t"], ["missing", "deep"]];
  assert.deepEqual(withoutTargets(doc, hidden), {
    a: 1,
    u: { note: "n" },
    items: [{ p: 1 }, { p: 2 }, {}],
  });
  assert.deepEqual(withoutTargets(doc, [["items", 1]]), { ...doc, items: [items[0], items[2]] });
  assert.equal(withoutTargets(doc, []), doc, "nothing hidden: the same value");
  assert.equal(withoutTargets(5, [["x"]]), 5);
});

Deno.test("every container on the way to a hidden target is a copy, the rest is shared", () => {
  const shared = { deep: [1] };
  const element = { p: 1 };
  const doc = { items: [element], t: {}, other: shared } as unknown as Json;
  const view = withoutTargets(doc, [["items", WILDCARD, "line"], ["t", "x"]]) as Record<string, Json>;
  assert.notEqual(view, doc);
  assert.notEqual((view.items as Json[])[0], element, "an element that has no target yet is copied as well");
  assert.deepEqual((view.items as Json[])[0], element);
  assert.equal(view.other, shared);
  assert.equal("t" in view, false);
});

Deno.test("a __proto__ member is kept as data, and a wide object is read through its table", () => {
  const doc = JSON.parse('{"__proto__": {"x": 1}, "keep": 2, "drop": 3}');
  const view = withoutTargets(doc, [["drop"]]) as Record<string, Json>;
  assert.deepEqual(Object.keys(view), ["__proto__", "keep"]);
  assert.equal(Object.getPrototypeOf(view), Object.prototype);
  const wide: Record<string, Json> = {};
  for (let i = 0; i < 100; i++) wide[`k${i}`] = i;
  const view2 = withoutTargets(toWide(wide), [["k5"]]) as Record<string, Json>;
  assert.equal(Object.keys(view2).length, 99);
  assert.equal(view2.k6, 6);
  assert.equal(view2.k5, undefined);
});
