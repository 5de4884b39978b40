import assert from "node:assert/strict";
import { compile, rejectsWith, serviceOf, testCompiler } from "../../_test_utils.ts";
import { parseEvolution } from "../../evolve/evolution.ts";
import { isObject, type Json, type JsonObject } from "../../json/value.ts";
import { parsePath } from "../../json/path.ts";
import { GUIDES } from "./mod.ts";

interface Block {
  guide: string;
  lang: string;
  code: string;
}

/** Fenced code blocks of every guide. */
function blocks(): Block[] {
  return GUIDES.flatMap((g) =>
    [...g.text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({
      guide: g.name,
      lang: m[1],
      code: m[2],
    }))
  );
}

const jsonBlocks = () =>
  blocks().filter((b) => b.lang === "json").map((b) => ({ ...b, value: JSON.parse(b.code) as Json }));

/** The first JSON block of a guide that satisfies `test`. */
function findBlock(name: string, test: (value: JsonObject) => boolean): JsonObject {
  const found = jsonBlocks().find((b) => b.guide === name && isObject(b.value) && test(b.value));
  assert.ok(found, `no such block in ${name}`);
  return structuredClone(found.value) as JsonObject;
}

const cartSpec = () => findBlock("model-spec-format", (v) => v.id === "shop/cart");
const isEvolution = (v: JsonObject) => "newVersion" in v || "expectedVersion" in v;

/** Wraps a spec fragment shown in a guide into a spec, by what the fragment is. */
function specFor(value: Json): JsonObject | "output" {
  const base = { id: "guide-block", schema: { type: "object" } };
  if (Array.isArray(value)) return { ...base, defaultValues: value };
  if (!isObject(value)) throw new Error(`unexpected block ${JSON.stringify(value)}`);
  if ("schema" in value && "id" in value) return value;
  if ("modelId" in value || "error" in value) return "output";
  if ("defaultView" in value) return { ...base, viewDefinition: value };
  if ("given" in value) return { ...base, tests: [value] };
  if ("trigger" in value) return { ...base, effects: [value] };
  if ("policy" in value) return { ...base, constraints: [value] };
  if ("property" in value) return { ...base, metaDerivations: [value] };
  if ("path" in value && "expr" in value) return { ...base, derivations: [value] };
  if ("type" in value) {
    return { ...base, viewDefinition: { defaultView: "v", views: [{ id: "v", components: [value] }] } };
  }
  throw new Error(`unclassified block ${JSON.stringify(value)}`);
}

Deno.test("the four guides are served as markdown under svc://guide/", () => {
  assert.deepEqual(GUIDES.map((g) => g.uri), [
    "svc://guide/model-spec-format",
    "svc://guide/jsonata-gotchas",
    "svc://guide/spec-evolution",
    "svc://guide/view-system",
  ]);
  for (const guide of GUIDES) {
    assert.equal(guide.uri, `svc://guide/${guide.name}`);
    assert.equal(guide.mimeType, "text/markdown");
    assert.ok(guide.text.startsWith(`# ${guide.title}\n`), `${guide.name} starts with its title`);
    assert.ok(guide.description.length > 40);
  }
});

Deno.test("every JSONata block of the guides compiles", () => {
  const compiler = testCompiler();
  const expressions = blocks().filter((b) => b.lang === "jsonata");
  assert.ok(expressions.length >= 8);
  for (const { guide, code } of expressions) {
    assert.doesNotThrow(() => compiler.compile(code), `${guide}: ${code}`);
  }
});

Deno.test("every unlabeled block of the guides lists canonical addresses", () => {
  const lists = blocks().filter((b) => b.lang === "");
  assert.ok(lists.length > 0);
  for (const address of lists.flatMap((b) => b.code.trim().split(/\s{2,}|\n/))) {
    assert.ok(parsePath(address).ok, address);
  }
});

Deno.test("every JSON block of the guides is valid: specs, fragments, views and evolutions", () => {
  for (const { guide, value } of jsonBlocks()) {
    if (isObject(value) && isEvolution(value)) {
      assert.doesNotThrow(() => parseEvolution(value), `${guide}: ${JSON.stringify(value)}`);
      continue;
    }
    const spec = specFor(value);
    if (spec === "output") continue;
    const report = compile(spec);
    assert.deepEqual(report.errors, [], `${guide}: ${JSON.stringify(value)}`);
  }
});

Deno.test("the cart of the spec format guide passes its own test", async () => {
  const { service } = await serviceOf();
  await service.createModel(cartSpec());
  const report = await service.getVerification("shop/cart");
  assert.equal(report.state, "green");
  assert.equal(report.passedCount, 1);
});

Deno.test("the library example of the spec format guide passes its own test and lists its exports", async () => {
  const { service } = await serviceOf();
  await service.createModel(findBlock("model-spec-format", (v) => v.id === "loan/quote"));
  assert.equal((await service.getVerification("loan/quote")).state, "green");
  const library = await service.getLibrary("loan/quote");
  assert.deepEqual(library.exports.map((e) => [e.name, e.kind]), [["payment", "function"], [
    "monthlyRate",
    "constant",
  ]]);
});

Deno.test("the worked evolution applies to the guide's cart once, then conflicts on its version", async () => {
  const { service } = await serviceOf();
  await service.createModel(cartSpec());
  await service.mutate("shop/cart", { "$.items[0]": { price: 4, qty: 5 } });
  const evolution = findBlock("spec-evolution", isEvolution);
  assert.deepEqual(await service.evolveSpec("shop/cart", evolution), { id: "shop/cart", version: "1.1.0" });
  const state = await service.getState("shop/cart") as JsonObject;
  assert.equal(state.discountPercent, 0, "backfilled");
  assert.equal(state.payable, 20);
  assert.equal((await service.getVerification("shop/cart")).state, "green");
  const conflict = await rejectsWith(() => service.evolveSpec("shop/cart", evolution), "version_conflict");
  assert.deepEqual(conflict.body, { error: "Version conflict", expected: "1.0.0", actual: "1.1.0" });
});

Deno.test("the view guide's definition evaluates to the evaluated form it shows", async () => {
  const { service } = await serviceOf();
  const definition = findBlock("view-system", (v) => "defaultView" in v);
  await service.createModel({ ...cartSpec(), viewDefinition: definition });
  await service.mutate("shop/cart", {
    "$.items[0]": { price: 2.5, qty: 4 },
    "$.items[1]": { price: 1, qty: 1 },
  });
  const view = await service.getView("shop/cart");
  const shown = findBlock("view-system", (v) => "modelId" in v);
  const { components: shownComponents, ...shownHeader } = shown;
  const { components, ...header } = view;
  assert.deepEqual(header, shownHeader);
  assert.deepEqual(components.find((c) => c.id === "total"), (shownComponents as JsonObject[])[0]);
});

Deno.test("the view guide says an onClose's navigate is not followed (the renderer ignores it)", () => {
  const guide = GUIDES.find((g) => g.name === "view-system")!.text;
  const events = guide.slice(guide.indexOf("## Events and navigation"));
  assert.match(
    events.slice(0, events.indexOf("\n## ", 1)),
    /except for\s+`onClose`[^.]*only its\s+`mutations`\s+run/,
  );
});

/** Claims of the JSONata gotchas guide: expression, input, result (undefined: nothing, Error: fails). */
const GOTCHA_CLAIMS: [string, JsonObject, Json | undefined | typeof Error][] = [
  ["x = null", {}, false],
  ["x = null", { x: null }, true],
  ["x != null", {}, false],
  ["x != null", { x: null }, false],
  ["$exists(x)", { x: null }, true],
  ["x + 1", {}, undefined],
  ["x + 1", { x: null }, Error],
  ["'a' & x", {}, "a"],
  ["'a' & x", { x: null }, "anull"],
  ["qty > 5", {}, undefined],
  ['"5" = 5', {}, false],
  ["items.name", { items: [{ name: "pen" }] }, "pen"],
  ["[items.name]", { items: [{ name: "pen" }] }, ["pen"]],
  ["$sum(items.price)", {}, undefined],
  ["$sum([items.price])", {}, 0],
  ["$average([])", {}, undefined],
  ["$count(missing)", {}, 0],
  ["'Total: ' + 5", {}, Error],
  ["$round(2.5)", {}, 2],
  ["$round(3.5)", {}, 4],
  ["$round(0.125, 2)", {}, 0.12],
  ["$round(1.005, 2)", {}, 1],
  ["false ? 1", {}, undefined],
  ["$boolean('false')", {}, true],
  ["a == 1", {}, Error],
  ["items.price * items.qty", { items: [{ price: 1, qty: 2 }, { price: 3, qty: 4 }] }, Error],
  ["items.(price * qty)", { items: [{ price: 1, qty: 2 }, { price: 3, qty: 4 }] }, [2, 12]],
  ["items[type = 'a'].price[1]", { items: [{ type: "a", price: 1 }, { type: "a", price: 2 }] }, undefined],
  ["(items[type = 'a'].price)[1]", { items: [{ type: "a", price: 1 }, { type: "a", price: 2 }] }, 2],
  ["([{'id': 'a'}, {'id': 'b', 'name': 'B'}])[id = 'b'].name", {}, "B"],
  ["[{'id': 'a'}, {'id': 'b', 'name': 'B'}][id = 'b'].name", {}, undefined],
  ["plans[id = plan].fee", { plan: "x", plans: [{ id: "x", fee: 3 }] }, undefined],
  ["plans[id = $$.plan].fee", { plan: "x", plans: [{ id: "x", fee: 3 }] }, 3],
  ["items.(%.discount)", { discount: 5, items: [{}] }, 5],
  ["%", {}, Error],
  ["1 / 0", {}, Error],
];

Deno.test("the claims of the JSONata gotchas guide hold in this engine", async () => {
  const compiler = testCompiler();
  for (const [source, input, expected] of GOTCHA_CLAIMS) {
    const label = `${source} with ${JSON.stringify(input)}`;
    if (expected === Error) {
      await assert.rejects(async () => await compiler.compile(source).evaluate(input), label);
      continue;
    }
    assert.deepStrictEqual(await compiler.compile(source).evaluate(input), expected, label);
  }
});
