import assert from "node:assert/strict";
import { compile, locations } from "../../_test_utils.ts";
import { spec } from "../test_support.ts";

const define = (body: string, names: string[]) => `( ${body}; ${JSON.stringify(names)} )`;
const DOUBLE = define("$double := function($x) { $x * 2 }", ["double"]);

/** The messages at `location`. */
const at = (findings: { location: string; message: string }[], location: string) =>
  findings.filter((f) => f.location === location).map((f) => f.message);

Deno.test("the three forms: a bare string, {define}, inherited layers then define", () => {
  for (
    const library of [
      DOUBLE,
      { define: DOUBLE, description: "helpers" },
      { layers: [{ define: DOUBLE, ref: "acme/base", version: "1.0.0" }], define: define("$t := 3", ["t"]) },
    ]
  ) {
    const report = compile(spec({ library, derivations: [{ path: "$.twice", expr: "$double(qty)" }] }));
    assert.deepEqual(report.errors, [], JSON.stringify(library));
    assert.deepEqual(report.warnings, []);
  }
});

Deno.test("a library is not an unknown field, and its members are shape-checked", () => {
  const report = compile(
    spec({ library: { define: DOUBLE, bogus: 1, layers: [{ ref: "x" }], extends: "1bad" } }),
  );
  assert.ok(!report.errors.some((f) => f.message === "unknown field 'library'"));
  assert.deepEqual(at(report.errors, "library"), ["unknown field 'bogus'"]);
  assert.deepEqual(at(report.errors, "library.layers[0].define"), ["define is required"]);
  assert.deepEqual(at(report.errors, "library.extends"), [
    "'1bad' is not a reference: use [ns/]name with an optional @version, @range or @sha256:<digest>",
  ]);
  assert.match(compile(spec({ library: 5 })).errors[0].message, /library must be a string or an object/);
});

Deno.test("extends is shape-checked only: a well-formed one is a warning that it is not resolved", () => {
  const report = compile(spec({ library: { define: DOUBLE, extends: "acme.fin/tax@^1.2.0" } }));
  assert.deepEqual(report.errors, []);
  assert.match(at(report.warnings, "library.extends")[0], /is resolved when the model is created/);
});

Deno.test("more than 8 layers, and neither define nor layers, are errors at library", () => {
  const layers = Array.from({ length: 9 }, (_, i) => ({ define: define(`$v${i} := ${i}`, [`v${i}`]) }));
  assert.match(
    at(compile(spec({ library: { layers } })).errors, "library")[0],
    /at most 8 layers; this one has 9/,
  );
  assert.match(at(compile(spec({ library: { description: "x" } })).errors, "library")[0], /needs `define`/);
});

Deno.test("blank and oversized defines, with the location of their layer", () => {
  assert.match(at(compile(spec({ library: "  " })).errors, "library")[0], /define is blank/);
  const report = compile(
    spec({ library: { define: " ", layers: [{ define: `(${" ".repeat(20_001)}["a"])` }] } }),
  );
  assert.match(at(report.errors, "library.define")[0], /define is blank/);
  assert.match(at(report.errors, "library.layers[0]")[0], /define has 20008 characters, more than 20000/);
});

Deno.test("a compile error, and a define without exports", () => {
  assert.match(
    at(compile(spec({ library: { define: "( $f := " } })).errors, "library.define")[0],
    /JSONata compile error/,
  );
  for (const source of ["( $f := function($x) { $x } )", "( $f := 1; [] )", "( $f := 1; 'f' )"]) {
    assert.match(at(compile(spec({ library: source })).errors, "library")[0], /no exports/, source);
  }
});

Deno.test("export names: identifiers, not reserved, no built-in, defined by the layer", () => {
  const report = compile(spec({
    library: {
      define: '( $a := 1; $sum := 2; $const := 3; $now := 4; $self := 5; ["a", "my-fn", "sum", ' +
        '"const", "now", "self", "missing", "a"] )',
      layers: [{ define: "( $f := 1; [$f] )" }],
    },
  }));
  const messages = at(report.errors, "library.define");
  assert.ok(messages.some((m) => /'my-fn' is not an identifier/.test(m)));
  assert.ok(messages.some((m) => /'sum' shadows the built-in \$sum/.test(m)));
  for (const name of ["const", "now", "self"]) {
    assert.ok(messages.some((m) => m === `'${name}' is a reserved name`), name);
  }
  assert.ok(messages.some((m) => /exports 'missing', which the layer does not define/.test(m)));
  assert.equal(messages.filter((m) => /'a'/.test(m)).length, 0, "a listed twice is fine");
  assert.match(at(report.errors, "library.layers[0]")[0], /named by a string/);
  for (const name of ["parent", "response", "status"]) {
    const one = compile(spec({ library: define(`$${name} := 1`, [name]) }));
    assert.deepEqual(at(one.errors, "library"), [`'${name}' is a reserved name`]);
  }
});

Deno.test("purity: reads of the document are refused outside predicates, sort and index bodies", () => {
  const impure = [
    "$f := function($x) { $x * price }",
    "$v := total",
    "$f := function() { $ }",
    "$f := function() { $$.a }",
    "$f := function() { *.a }",
    "$f := function() { **.a }",
  ];
  for (const body of impure) {
    const names = [body.slice(1, 2)];
    const messages = at(compile(spec({ library: define(body, names) })).errors, "library");
    assert.equal(messages.length, 1, body);
    assert.match(messages[0], /reads the document \('.*' at position \d+\): a library function reads only/);
  }
  const pure = "$f := function($items) { $items[price > 10]^(>price){category: $sum(price)}.qty[0] }";
  assert.deepEqual(compile(spec({ library: define(pure, ["f"]) })).errors, []);
});

Deno.test("$eval is refused in a define: the code it runs could read the caller's document", () => {
  const report = compile(spec({
    library: define("$peek := function($k) { $eval($k) }", ["peek"]),
    derivations: [{ path: "$.t", expr: "$peek('qty')" }],
  }));
  assert.equal(at(report.errors, "library").length, 1);
  assert.match(at(report.errors, "library")[0], /^uses \$eval at position \d+: code made from a string/);
});

Deno.test("$now, $millis and $random are refused in a define", () => {
  for (const name of ["now", "millis", "random"]) {
    const report = compile(spec({ library: define(`$f := function() { $${name}() }`, ["f"]) }));
    assert.deepEqual(at(report.errors, "library"), [
      `uses $${name}: library values are computed once and library functions must be pure`,
    ]);
  }
});

Deno.test("constants: an inherited layer lists what it reads; every required constant exists", () => {
  const inherited = (layer: Record<string, unknown>) =>
    compile(spec({
      constants: { vat: 0.2 },
      library: { layers: [{ ref: "acme/tax", version: "1.0.0", ...layer }] },
    }));
  const reads = define("$net := function($g) { $g / (1 + $const.vat) }", ["net"]);
  assert.match(
    at(inherited({ define: reads }).errors, "library.layers[0]")[0],
    /reads \$const\.vat without listing/,
  );
  assert.deepEqual(inherited({ define: reads, requiresConstants: ["vat"] }).errors, []);
  const dynamic = define("$get := function($k) { $lookup($const, $k) }", ["get"]);
  assert.match(
    at(inherited({ define: dynamic }).errors, "library.layers[0]")[0],
    /reads \$const without listing/,
  );
  assert.match(
    at(inherited({ define: reads, requiresConstants: ["vat", "fx"] }).errors, "library.layers[0]")[0],
    /requires the constant 'fx', which the model does not declare/,
  );
  const local = compile(spec({ constants: { vat: 0.2 }, library: { define: reads } }));
  assert.deepEqual(local.errors, [], "a local layer reads the model's constants freely");
  const missing = compile(spec({ library: { define: reads, requiresConstants: ["vat"] } }));
  assert.match(at(missing.errors, "library.define")[0], /requires the constant 'vat'/);
  // An object's inherited members are no constants the model declares.
  for (const name of ["toString", "__proto__", "constructor"]) {
    const hostile = compile(spec({ library: { define: reads, requiresConstants: [name] } }));
    assert.match(
      at(hostile.errors, "library.define")[0],
      new RegExp(`requires the constant '${name}'`),
      name,
    );
  }
});

Deno.test("signatures parse and name exports of their layer", () => {
  const ok = compile(spec({ library: { define: DOUBLE, signatures: { double: "<n:n>" } } }));
  assert.deepEqual(ok.errors, []);
  const bad = compile(spec({ library: { define: DOUBLE, signatures: { double: "<n>>", other: "<n:n>" } } }));
  const messages = at(bad.errors, "library.define");
  assert.ok(messages.some((m) => /signatures names 'other'/.test(m)));
  assert.ok(messages.some((m) => /the signature of 'double' \(<n>>\) does not parse/.test(m)));
  const shape = compile(spec({ library: { define: DOUBLE, signatures: { double: "n:n" } } }));
  assert.deepEqual(at(shape.errors, "library.signatures.double"), [
    "'n:n' is not a JSONata signature such as <nn:n>",
  ]);
});

Deno.test("layers see earlier exports; a later layer's clash is a warning and wins", () => {
  const report = compile(spec({
    library: {
      layers: [
        { define: define("$rate := 0.1; $pct := function($x) { $x * 100 }", ["rate", "pct"]) },
        { define: define("$tax := function($x) { $x * $rate }", ["tax"]) },
      ],
      define: define("$rate := 0.2; $gross := function($x) { $x + $tax($x) }", ["rate", "gross"]),
    },
    derivations: [{ path: "$.g", expr: "$gross(price) + $pct(rate)" }],
  }));
  assert.deepEqual(report.errors, []);
  assert.deepEqual(at(report.warnings, "library.define"), [
    "exports 'rate', which shadows 'rate' of an earlier layer (local)",
  ]);
  const model = report.model!;
  assert.deepEqual([...model.library!.exports], [["rate", "local"], ["pct", "local"], ["tax", "local"], [
    "gross",
    "local",
  ]]);
});

Deno.test("a layer sees only the layers before it", () => {
  const report = compile(spec({
    library: {
      layers: [{ define: define("$a := function($x) { $b($x) }", ["a"]) }],
      define: define("$b := function($x) { $x }", ["b"]),
    },
  }));
  assert.match(
    at(report.errors, "library.layers[0]")[0],
    /calls \$b at position \d+, which is not a built-in/,
  );
});

Deno.test("more than 64 exports is a warning at library", () => {
  const names = Array.from({ length: 65 }, (_, i) => `v${i}`);
  const body = names.map((n, i) => `$${n} := ${i}`).join("; ");
  const report = compile(spec({ library: define(body, names) }));
  assert.deepEqual(report.errors, []);
  assert.deepEqual(at(report.warnings, "library"), ["65 exports: more than 64 is hard to keep track of"]);
});

Deno.test("an unresolved call anywhere in the spec is an error, a bare unresolved variable a warning", () => {
  const report = compile(spec({
    library: DOUBLE,
    derivations: [{ path: "$.a", expr: "$doubel(qty)" }, { path: "$.b", expr: "qty + $tax" }],
    metaDerivations: [{ path: "$.qty", property: "maximum", expr: "$limit(price)" }],
    constraints: [{
      id: "c",
      expr: "$double(qty) < $max([1, 2]) and $ok(qty)",
      message: "m",
      policy: "flag",
    }],
    defaultValues: [{ path: "$", expr: "{'qty': $seed()}" }],
    effects: [{
      id: "e",
      executor: "server",
      trigger: "qty > 1",
      request: { url: "https://example.com/{ $enc(qty) }" },
      response: { set: { "$.price": "$response.price + $double($status) + $nope" } },
    }],
    viewDefinition: {
      defaultView: "v",
      views: [{ id: "v", components: [{ id: "t", type: "label", text: "$fmt(qty)", visible: "$shown" }] }],
    },
  }));
  assert.deepEqual(locations(report.errors), [
    "derivations[0].expr",
    "metaDerivations[0].expr",
    "constraints[0].expr",
    "effects[0].request.url",
    "defaultValues[0].expr",
    "viewDefinition.views[0].components[0].text",
  ]);
  assert.match(report.errors[0].message, /calls \$doubel at position \d+, .*\(did you mean \$double\?\)/);
  assert.deepEqual(locations(report.warnings), [
    "derivations[1].expr",
    "effects[0].response.set['$.price']",
    "viewDefinition.views[0].components[0].visible",
  ]);
  assert.match(report.warnings[0].message, /reads \$tax at position \d+, which nothing binds/);
});

Deno.test("what every expression may read without a library: built-ins, $const, $parent, locals", () => {
  const report = compile(spec({
    constants: { k: 1 },
    derivations: [
      { path: "$.items[*].x", expr: "$parent.qty * $const.k + $sum(items.qty) + $millis() * 0" },
      { path: "$.y", expr: "($f := function($n) { $n * 2 }; $map(items, function($i) { $f($i.qty) }))" },
      { path: "$.z", expr: "items#$i[$i > 0].qty" },
    ],
  }));
  assert.deepEqual(report.errors, []);
  assert.deepEqual(report.warnings, []);
});
