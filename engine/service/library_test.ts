/**
 * A model's library through the service: its exports in every kind of
 * evaluation (the write cycle, lazy reads, views, fold-backs, embedded tests,
 * dry runs), the library read, and `newLibrary` evolutions.
 */
import assert from "node:assert/strict";
import { rejectsWith } from "../_test_utils.ts";
import { effectService, ok, ScriptedExecutor } from "../effects/test_support.ts";
import type { Json, JsonObject } from "../json/value.ts";
import type { ModelSpec } from "../model/types.ts";
import { specDigest } from "../composition/repository.ts";
import { webPlatform } from "../ports.ts";
import { ModelService } from "./service.ts";

/** The model whose library SHOP's inherited layer is pinned to. */
const BASE: ModelSpec = {
  id: "acme/base",
  version: "1.0.0",
  schema: { type: "object" },
  library: '( $round2 := function($x)<n:n> { $round($x, 2) }; $pct := 100; ["round2", "pct"] )',
};
const BASE_DIGEST = await specDigest(BASE, webPlatform().hasher);

/** A shop line with a two-layer library used by every section. */
const SHOP: ModelSpec = {
  id: "shop",
  schema: {
    type: "object",
    properties: {
      net: { type: "number" },
      qty: { type: "integer" },
      items: { type: "array", items: { type: "object", properties: { net: { type: "number" } } } },
      io: { type: "object" },
      rate: { type: "number" },
      label: { type: "string" },
    },
  },
  constants: { vat: 0.2, cap: 1000 },
  library: {
    description: "pricing",
    layers: [{
      define: BASE.library as string,
      ref: "acme/base",
      version: "1.0.0",
      digest: BASE_DIGEST,
      repo: "local",
      owner: "acme",
    }],
    define: "( $rate := $const.vat; $gross := function($net) { $round2($net * (1 + $rate)) }; " +
      "$limit := $const.cap * 2; $tiers := [10, 20].$gross($); " +
      '["gross", "rate", "limit", "tiers"] )',
  },
  defaultValues: [{ path: "$.items[*]", expr: "{'net': $round2(1.006)}" }],
  derivations: [
    { path: "$.gross", expr: "$exists(net) ? $gross(net)" },
    { path: "$.items[*].gross", expr: "$gross($parent.net)" },
    { path: "$.total", expr: "$round2($sum(items.gross) * qty)", evaluation: "lazy" },
  ],
  metaDerivations: [{ path: "$.qty", property: "maximum", expr: "$limit" }],
  constraints: [{ id: "cap", expr: "$not(gross > $limit)", message: "over the limit", policy: "rollback" }],
  effects: [
    { id: "told", executor: "caller", trigger: "gross > 100", emit: "big", payload: "{'pct': $pct}" },
    {
      id: "fx",
      executor: "server",
      trigger: "net > 0",
      dedupeKey: "net",
      request: { url: "https://fx.example/{ $gross(net) }" },
      response: { set: { "$.rate": "$gross($response.rate)", "$.label": "'vat ' & $string($rate * $pct)" } },
      statusPath: "$.io.fx",
    },
  ],
  tests: [
    { given: { "$.net": 10 }, expect: { "$.gross": 12 } },
    { given: { "$.items[0]": {} }, expect: { "$.items[0].net": 1.01, "$.items[0].gross": 1.21 } },
  ],
  viewDefinition: {
    defaultView: "main",
    views: [{
      id: "main",
      components: [
        { id: "g", type: "label", text: "$string($gross(net))" },
        { id: "t", type: "label", text: "$string($tiers)", visible: "$rate > 0" },
      ],
    }],
  },
};

Deno.test("library exports in the cycle, lazy reads, views, embedded tests and fold-backs", async () => {
  const http = new ScriptedExecutor().answer(ok({ rate: 2 }));
  const { service, scheduler } = await effectService([http]);
  await service.createModel(BASE);
  await service.createModel(SHOP);
  const result = await service.mutate("shop", { "$.net": 100, "$.qty": 2, "$.items[0]": {} });
  assert.deepEqual(result.dispatchedEffects, [{ effectId: "told", emit: "big", payload: { pct: 100 } }]);
  await scheduler.advance(0);
  assert.equal(
    (http.jobs[0].work as { requests: { url: string }[] }).requests[0].url,
    "https://fx.example/120",
  );
  const state = await service.getState("shop") as JsonObject;
  assert.equal(state.gross, 120);
  assert.deepEqual(state.items, [{ net: 1.01, gross: 1.21 }], "defaults and per-element derivations");
  assert.equal(state.total, 2.42, "a lazy derivation read on demand");
  assert.equal(state.rate, 2.4, "response.set calls the library");
  assert.equal(state.label, "vat 20");
  assert.equal((await service.getSchema("shop", "$.qty")).maximum, 2000);
  await rejectsWith(
    () => service.mutate("shop", { "$.net": 5000 }),
    "constraint_violation",
    /over the limit/,
  );
  const view = await service.getView("shop");
  assert.deepEqual(view.components.map((c) => [c.id, c.text]), [["g", "120"], ["t", "[12,24]"]]);
  const verification = await service.getVerification("shop");
  assert.equal(verification.state, "green", JSON.stringify(verification));
});

Deno.test("dry runs and ad-hoc tests evaluate with the library", async () => {
  const service = await ModelService.open();
  const run = await service.authoring.dryRun(SHOP, [{ "$.net": 50 }]);
  assert.equal((run.state as JsonObject).gross, 60);
  const tested = await service.authoring.testSpec(SHOP, [{
    given: { "$.net": 1 },
    expect: { "$.gross": 1.2 },
  }]);
  assert.equal(tested.passedCount, 1);
  assert.equal(tested.passed, true);
});

Deno.test("the library read: layers with origin and pin, functions then constants", async () => {
  const service = await ModelService.open();
  await service.createModel(BASE);
  await service.createModel(SHOP);
  assert.deepEqual(await service.getLibrary("shop"), {
    description: "pricing",
    layers: [
      {
        origin: "acme/base@1.0.0",
        ref: "acme/base",
        version: "1.0.0",
        digest: BASE_DIGEST,
        define: (SHOP.library as { layers: { define: string }[] }).layers[0].define,
      },
      { origin: "local", define: (SHOP.library as { define: string }).define },
    ],
    exports: [
      { name: "round2", kind: "function", signature: "<n:n>", arity: 1, origin: "acme/base@1.0.0" },
      { name: "gross", kind: "function", arity: 1, origin: "local" },
      { name: "pct", kind: "constant", value: 100, origin: "acme/base@1.0.0" },
      { name: "rate", kind: "constant", value: 0.2, origin: "local" },
      { name: "limit", kind: "constant", value: 2000, origin: "local" },
      { name: "tiers", kind: "constant", value: [12, 24], origin: "local" },
    ],
  });
  await service.createModel({ id: "plain", schema: { type: "object" } });
  await rejectsWith(() => service.getLibrary("plain"), "not_found", /Model 'plain' has no library/);
  await rejectsWith(() => service.getLibrary("nope"), "not_found", /nope/);
});

Deno.test("a library that fails to evaluate refuses the create with 422 naming the layer", async () => {
  const service = await ModelService.open();
  const spec = { id: "bad", schema: { type: "object" }, library: '( $v := $error("no"); ["v"] )' };
  await rejectsWith(
    () => service.createModel(spec),
    "validation_failed",
    /library: the layer at library \(local\)/,
  );
  assert.deepEqual(await service.listModels(), []);
});

Deno.test("newLibrary: a new local layer is used at once; dropping a used export is refused", async () => {
  const service = await ModelService.open();
  await service.createModel(BASE);
  await service.createModel(SHOP);
  await service.mutate("shop", { "$.net": 10 });
  const define = "( $rate := 0.5; $gross := function($net) { $round2($net * (1 + $rate)) }; " +
    '$limit := 10000; $tiers := []; ["gross", "rate", "limit", "tiers"] )';
  await service.evolveSpec("shop", { newLibrary: define, newVersion: "1.1.0" });
  assert.equal((await service.getState("shop") as JsonObject).gross, 15, "re-derived with the new layer");
  const library = await service.getLibrary("shop");
  assert.deepEqual(
    library.layers.map((l) => l.origin),
    ["acme/base@1.0.0", "local"],
    "the inherited layer stays",
  );
  const refused = await rejectsWith(
    () => service.evolveSpec("shop", { newLibrary: '( $gross := function($n) { $n }; ["gross"] )' }),
    "validation_failed",
    /Evolution refused/,
  );
  assert.deepEqual((refused.body as { errors: Json[] }).errors, [
    {
      location: "newLibrary",
      message:
        "export 'rate' is still used by $rate in effects[1].response.set.$.label, viewDefinition.views[0].components[1].visible",
    },
    {
      location: "newLibrary",
      message: "export 'limit' is still used by $limit in metaDerivations[0].expr, constraints[0].expr",
    },
    {
      location: "newLibrary",
      message: "export 'tiers' is still used by $tiers in viewDefinition.views[0].components[1].text",
    },
  ]);
  assert.equal((await service.getSpec("shop")).version, "1.1.0", "nothing was applied");
});

Deno.test("a pinned layer a create writes must be one the model it names passes on", async () => {
  const service = await ModelService.open();
  const layer = (SHOP.library as { layers: JsonObject[] }).layers[0];
  const forged = (changes: JsonObject) => ({
    id: "forged",
    schema: { type: "object" },
    library: { layers: [{ ...layer, ...changes }], define: '( $x := 1; ["x"] )' },
  });
  const refused = async (changes: JsonObject, message: RegExp) => {
    const err = await rejectsWith(() => service.createModel(forged(changes)), "validation_failed");
    assert.deepEqual(
      (err.body as { errors: { location: string }[] }).errors.map((f) => f.location),
      ["library.layers[0]"],
    );
    assert.match(err.message, message);
  };
  await refused({}, /UnresolvedReference: 'acme\/base@sha256:[0-9a-f]{64}' is not found/);
  await service.createModel(BASE);
  await refused({ digest: `sha256:${"0".repeat(64)}` }, /DigestMismatch: .* the digest does not match/);
  await refused(
    { define: '( $round2 := function($x) { $x * 1000 }; ["round2"] )' },
    /is not a layer acme\/base@sha256:[0-9a-f]{64} passes on/,
  );
  await refused({ version: "9.9.9" }, /is not a layer acme\/base@sha256:[0-9a-f]{64} passes on/);
  await refused({ owner: "evil" }, /is not a layer acme\/base@sha256:[0-9a-f]{64} passes on/);
  assert.deepEqual(await service.listModels(), ["acme/base"]);
  // The layer as flattening pins it (a spec read back and created again) is taken.
  await service.createModel(forged({}));
  assert.deepEqual((await service.getLibrary("forged")).layers.map((l) => l.origin), [
    "acme/base@1.0.0",
    "local",
  ]);
});

Deno.test("a library function may not take the caller's context: a built-in missing its first argument, a '-' signature", async () => {
  const service = await ModelService.open();
  /** Refused with 422 (validation_failed) at `location` only. */
  const refused = async (library: Json, location: string, message: RegExp) => {
    const err = await rejectsWith(
      () => service.createModel({ id: "ctx", schema: { type: "object" }, library } as ModelSpec),
      "validation_failed",
    );
    const errors = (err.body as { errors: { location: string; message: string }[] }).errors;
    assert.deepEqual(errors.map((e) => e.location), [location]);
    assert.match(errors[0].message, message);
  };
  const readsContext = /reads the document \('\$\w+\(\) without its first argument' at position \d+\)/;
  await refused('( $label := function() { $string() }; ["label"] )', "library", readsContext);
  await refused('( $up := function($s) { $s & $uppercase() }; ["up"] )', "library", readsContext);
  await refused('( $head := function($s) { $s ~> $substringBefore }; ["head"] )', "library", readsContext);
  await refused(
    '( $trim2 := function($s)<s-:s> { $trim($s) }; ["trim2"] )',
    "library",
    /the function at position \d+ has the signature <s-:s>, which uses '-'/,
  );
  await refused(
    { define: '( $trim2 := function($s) { $trim($s) }; ["trim2"] )', signatures: { trim2: "<s-:s>" } },
    "library.define",
    /the signature of 'trim2' \(<s-:s>\) uses '-', which passes the caller's context/,
  );
  assert.deepEqual(await service.listModels(), []);
  // every argument given (`~>` gives the first): taken, and the function reads only them
  await service.createModel({
    id: "ctx",
    schema: { type: "object" },
    library:
      '( $head := function($s)<s:s> { ($s ~> $substringBefore(",")) & ($string($s) ~> $trim()) }; ["head"] )',
    derivations: [{ path: "$.h", expr: "$head(name)" }],
  });
  await service.mutate("ctx", { "$.name": " a,b" });
  assert.equal((await service.getState("ctx") as JsonObject).h, " aa,b");
});

Deno.test("a library function given the context by JSONata's signature matching is refused; a local variable named like a built-in is taken", async () => {
  const service = await ModelService.open();
  const err = await rejectsWith(
    () =>
      service.createModel({
        id: "sift",
        schema: { type: "object" },
        library: '( $big := function($o) { $sift(function($v) { $v > 1 }) }; ["big"] )',
      } as ModelSpec),
    "validation_failed",
  );
  const errors = (err.body as { errors: { message: string }[] }).errors;
  assert.match(errors[0].message, /reads the document \('\$sift\(\) without its first argument'/);
  // `$length` is the library's own function here, not the built-in
  await service.createModel({
    id: "local",
    schema: { type: "object" },
    library: '( $one := function($x) { ($length := function($y) { 1 }; $length()) }; ["one"] )',
    derivations: [{ path: "$.n", expr: "$one(name)" }],
  });
  await service.mutate("local", { "$.name": "abc" });
  assert.equal((await service.getState("local") as JsonObject).n, 1);
});

Deno.test("a built-in a library hands out reads the context where it is called: the derivation follows it", async () => {
  const service = await ModelService.open();
  // Accepted: the library names `$uppercase` as a value, which is no read of its own.
  await service.createModel({
    id: "lend",
    schema: { type: "object", properties: { name: { type: "string" }, tag: { type: "string" } } },
    library: '( $upper := function() { $uppercase }; $shout := $uppercase; ["upper", "shout"] )',
    derivations: [
      { path: "$.called", expr: "name.$upper()()" },
      { path: "$.bound", expr: "($f := $upper(); name.$f())" },
      { path: "$.value", expr: "tag.$shout()" },
    ],
  });
  for (const [name, tag] of [["ab", "x"], ["cd", "y"]]) {
    await service.mutate("lend", { "$.name": name, "$.tag": tag });
    const state = await service.getState("lend") as JsonObject;
    const up = name.toUpperCase();
    assert.deepEqual([state.called, state.bound, state.value], [up, up, tag.toUpperCase()]);
  }
  await service.close();
});

Deno.test("extends of a newer version of a base a template's layers were built on warns, naming both versions", async () => {
  const service = await ModelService.open();
  const schema = { type: "object" };
  await service.createModel({ id: "lib/base", version: "1.0.0", schema, library: '( $one := 1; ["one"] )' });
  await service.createModel({
    id: "lib/tmpl",
    schema,
    library: { extends: "lib/base", define: '( $two := $one * 2; ["two"] )' },
  });
  // Extends the base too, with no layer of another model on it.
  await service.createModel({
    id: "app/c",
    schema,
    library: { extends: "lib/base", define: '( $c := $one; ["c"] )' },
  });
  await service.evolveSpec("lib/base", { newVersion: "2.0.0", newLibrary: '( $one := 10; ["one"] )' });
  const own = { extends: "lib/base", define: '( $three := $two + 1; ["three"] )' };
  const branch = (id: string, library?: unknown) => ({ id, template: { ref: "lib/tmpl" }, schema, library });
  const warning = {
    location: "library.extends",
    message: "'lib/tmpl@1.0.0' was built on 'lib/base@1.0.0': it now runs on 2.0.0",
  };
  // A create: the template's pinned base@1.0.0 gives way to 2.0.0 under the template's own layer.
  const created = await service.createModel(branch("app/a", own));
  assert.deepEqual(created.warnings, [warning]);
  assert.deepEqual((await service.getLibrary("app/a")).layers.map((l) => l.origin), [
    "lib/base@2.0.0",
    "lib/tmpl@1.0.0",
    "local",
  ]);
  // An evolution extending it again: same version, nothing replaced that differs.
  assert.equal((await service.evolveSpec("app/a", { newLibrary: own })).warnings, undefined);
  // An evolution of a branch that did not extend it yet.
  await service.createModel(branch("app/b"));
  assert.deepEqual((await service.evolveSpec("app/b", { newLibrary: own })).warnings, [warning]);
  // A model with no layer built on the base it extends again (an upgrade it asks for): no warning.
  assert.equal(
    (await service.evolveSpec("app/c", { newLibrary: { ...own, define: '( $c := $one; ["c"] )' } })).warnings,
    undefined,
  );
});

Deno.test("extends of a base whose library changed under the same version warns, for any model built on it", async () => {
  const service = await ModelService.open();
  const schema = { type: "object" };
  await service.createModel({ id: "lib/base", version: "1.0.0", schema, library: '( $one := 1; ["one"] )' });
  await service.createModel({
    id: "lib/tmpl",
    schema,
    library: { extends: "lib/base", define: '( $two := $one * 2; ["two"] )' },
  });
  const mine = { extends: "lib/base@1.0.0", define: '( $c := $one; ["c"] )' };
  await service.createModel({ id: "app/c", schema, library: mine });
  // Another part of the base changes, its library and version kept: the same code, no warning.
  await service.evolveSpec("lib/base", { upsertDerivations: [{ path: "$.x", expr: "1" }] });
  assert.equal((await service.evolveSpec("app/c", { newLibrary: mine })).warnings, undefined);
  // Its library changes, the version kept: a pin of 1.0.0 cannot tell, so re-extending it says so.
  await service.evolveSpec("lib/base", { newLibrary: '( $one := 100; ["one"] )' });
  assert.equal((await service.getSpec("lib/base")).version, "1.0.0");
  const changed = (on: string) => [{
    location: "library.extends",
    message: `'${on}' was built on 'lib/base@1.0.0': it now runs on 1.0.0 with other code`,
  }];
  // A model of its own layer only, the exact version pinned.
  assert.deepEqual((await service.evolveSpec("app/c", { newLibrary: mine })).warnings, changed("app/c"));
  assert.equal(
    (await service.evolveSpec("app/c", { newLibrary: mine })).warnings,
    undefined,
    "now on that code",
  );
  // A branch whose template's layer was built on the old code.
  const created = await service.createModel({
    id: "app/a",
    template: { ref: "lib/tmpl" },
    schema,
    library: { extends: "lib/base", define: '( $three := $two + 1; ["three"] )' },
  });
  assert.deepEqual(created.warnings, changed("lib/tmpl@1.0.0"));
  await service.close();
});

Deno.test("extending a base that extends another again keeps one copy of the layers it passes on", async () => {
  const service = await ModelService.open();
  const schema = { type: "object" };
  await service.createModel({ id: "lib/core", schema, library: '( $one := 1; ["one"] )' });
  await service.createModel({
    id: "lib/base",
    schema,
    library: { extends: "lib/core", define: '( $two := $one * 2; ["two"] )' },
  });
  const mine = { extends: "lib/base", define: '( $c := $two; ["c"] )' };
  await service.createModel({ id: "app/c", schema, library: mine });
  const origins = ["lib/core@1.0.0", "lib/base@1.0.0", "local"];
  assert.deepEqual((await service.getLibrary("app/c")).layers.map((l) => l.origin), origins);
  // Before, lib/core's layer came twice, the second shadowing the first (a warning).
  assert.equal((await service.evolveSpec("app/c", { newLibrary: mine })).warnings, undefined);
  assert.deepEqual((await service.getLibrary("app/c")).layers.map((l) => l.origin), origins);
  await service.close();
});

Deno.test("extends of a newer version with the same code does not warn; a base's own base that moved replaces its old copy", async () => {
  const service = await ModelService.open();
  const schema = { type: "object", properties: { c: { type: "number" } } };
  await service.createModel({ id: "lib/core", version: "1.0.0", schema, library: '( $one := 1; ["one"] )' });
  await service.createModel({
    id: "lib/base",
    schema,
    library: { extends: "lib/core", define: '( $two := $one * 2; ["two"] )' },
  });
  await service.createModel({
    id: "lib/tmpl",
    schema,
    library: { extends: "lib/core", define: '( $three := $one * 3; ["three"] )' },
  });
  // A new version of the core with its code unchanged: what the template was built on runs as it did.
  await service.evolveSpec("lib/core", { newVersion: "1.1.0" });
  const created = await service.createModel({
    id: "app/a",
    template: { ref: "lib/tmpl" },
    schema,
    library: { extends: "lib/core", define: '( $four := $three + 1; ["four"] )' },
  });
  assert.equal(created.warnings, undefined);
  assert.deepEqual((await service.getLibrary("app/a")).layers.map((l) => l.origin), [
    "lib/core@1.1.0",
    "lib/tmpl@1.0.0",
    "local",
  ]);

  // The core moves on with new code and the base is built on it again: extending the base again takes
  // the core's new layer in place of the old one (before, the old copy came after it and shadowed it).
  const mine = { extends: "lib/base", define: '( $c := $two; ["c"] )' };
  await service.createModel({
    id: "app/c",
    schema,
    derivations: [{ path: "$.c", expr: "$c" }],
    library: mine,
  });
  await service.evolveSpec("lib/core", { newVersion: "2.0.0", newLibrary: '( $one := 10; ["one"] )' });
  await service.evolveSpec("lib/base", {
    newLibrary: { extends: "lib/core", define: '( $two := $one * 2; ["two"] )' },
  });
  assert.equal((await service.evolveSpec("app/c", { newLibrary: mine })).warnings, undefined);
  assert.deepEqual((await service.getLibrary("app/c")).layers.map((l) => l.origin), [
    "lib/core@2.0.0",
    "lib/base@1.0.0",
    "local",
  ]);
  assert.equal((await service.getState("app/c") as JsonObject).c, 20);
  await service.close();
});
