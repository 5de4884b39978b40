import assert from "node:assert/strict";
import {
  canonicalizePath,
  formatPath,
  hasWildcard,
  isPrefixOf,
  parseConcretePath,
  parsePath,
  pathOrNull,
  pathsOverlap,
  pathToPointer,
  patternMatches,
  pointerToLocation,
  pointerToPath,
  toPattern,
  WILDCARD,
} from "./path.ts";

const parse = (text: string) => {
  const parsed = parsePath(text);
  assert.ok(parsed.ok, `'${text}' should parse: ${!parsed.ok && parsed.message}`);
  return parsed.path;
};

Deno.test("parsePath reads canonical addresses: members, indices, wildcards, quoted names", () => {
  assert.deepEqual(parse("$.a"), ["a"]);
  assert.deepEqual(parse("$.items[0].name"), ["items", 0, "name"]);
  assert.deepEqual(parse("$.items[*].lineTotal"), ["items", WILDCARD, "lineTotal"]);
  assert.deepEqual(parse("$.board[2][1]"), ["board", 2, 1]);
  assert.deepEqual(parse("$['odd key'].x"), ["odd key", "x"]);
  assert.deepEqual(parse(`$["it's"]`), ["it's"]);
  assert.deepEqual(parse("$"), []);
});

Deno.test("parsePath rejects the legacy dot-index form with the canonical rewrite", () => {
  const parsed = parsePath("$.items.0.name");
  assert.equal(parsed.ok, false);
  assert.ok(!parsed.ok);
  assert.equal(parsed.canonical, "$.items[0].name");
  assert.match(parsed.message, /legacy dot-index/);
  assert.match(parsed.message, /'\$\.items\[0\]\.name'/);
  const star = parsePath("$.items.*.qty");
  assert.ok(!star.ok);
  assert.equal(star.canonical, "$.items[*].qty");
});

Deno.test("parsePath rejects unrooted forms with the canonical rewrite", () => {
  for (
    const [text, canonical] of [["items[0].name", "$.items[0].name"], ["total", "$.total"], [".a.b", "$.a.b"]]
  ) {
    const parsed = parsePath(text);
    assert.ok(!parsed.ok, `${text} must be rejected`);
    assert.equal(parsed.canonical, canonical);
    assert.match(parsed.message, /unrooted/);
    assert.ok(parsed.message.includes(`'${canonical}'`), parsed.message);
  }
});

Deno.test("parsePath rejects malformed and non-string addresses with a clear message", () => {
  for (const bad of ["$.a[", "$.a[x]", "$..a", "$.a b", "$.[0]x"]) {
    const parsed = parsePath(bad);
    assert.ok(!parsed.ok, `${bad} must be rejected`);
    assert.match(parsed.message, /is not a valid address/);
  }
  for (const bad of [undefined, null, 3, "", "   "]) {
    const parsed = parsePath(bad);
    assert.ok(!parsed.ok);
    assert.match(parsed.message, /non-empty string/);
  }
});

Deno.test("parsePath refuses an index with a leading zero, as RFC 9535's grammar does", () => {
  for (const bad of ["$.a[01]", "$.a[00]", "$.a[0][007].b"]) {
    const parsed = parsePath(bad);
    assert.ok(!parsed.ok, `${bad} must be rejected`);
    assert.match(
      parsed.message,
      /is not a valid address: '\[0\d*\]\S*' is not an index \[0\], \[\*\] or a quoted name \['x'\]$/,
    );
  }
  assert.deepEqual(pathOrNull("$.a[0][10]"), ["a", 0, 10]);
});

Deno.test("parsePath: a bracket holding no index, [*] or quoted name says what a bracket holds", () => {
  const messages = ["$.a[-1]", "$.a[1e3]", "$.a[1:2]", "$.a[?(@.x)]", "$.a['x]"].map((bad) => {
    const parsed = parsePath(bad);
    return parsed.ok ? null : parsed.message;
  });
  assert.deepEqual(messages, [
    "'$.a[-1]' is not a valid address: '[-1]' is not an index [0], [*] or a quoted name ['x']",
    "'$.a[1e3]' is not a valid address: '[1e3]' is not an index [0], [*] or a quoted name ['x']",
    "'$.a[1:2]' is not a valid address: '[1:2]' is not an index [0], [*] or a quoted name ['x']",
    "'$.a[?(@.x)]' is not a valid address: '[?(@.x)]' is not an index [0], [*] or a quoted name ['x']",
    "'$.a['x]' is not a valid address: '['x]' is not an index [0], [*] or a quoted name ['x']",
  ]);
});

Deno.test("pathOrNull: the segments of a canonical address, null for what parsePath refuses", () => {
  assert.deepEqual(pathOrNull("$.items[2]['odd key']"), ["items", 2, "odd key"]);
  assert.deepEqual(pathOrNull("$.items[*].n"), ["items", WILDCARD, "n"]);
  for (const bad of ["$.items.0", "items[0]", "$.a[", "", null, 3]) {
    assert.equal(pathOrNull(bad), null, String(bad));
  }
});

Deno.test("formatPath is the inverse of parsePath and quotes unusual member names", () => {
  for (const text of ["$", "$.a", "$.items[3].qty", "$.items[*].lineTotal", "$['odd key'][0]", "$['a.b']"]) {
    assert.equal(formatPath(parse(text)), text);
  }
  assert.equal(formatPath(["it's"]), "$['it\\'s']");
  assert.deepEqual(parse(formatPath(["it's"])), ["it's"]);
});

Deno.test("canonicalizePath accepts unrooted and legacy forms for reads", () => {
  assert.deepEqual(canonicalizePath("order.total"), ["order", "total"]);
  assert.deepEqual(canonicalizePath("$.items.0.name"), ["items", 0, "name"]);
  assert.deepEqual(canonicalizePath("$.x"), ["x"]);
  assert.match(canonicalizePath("$.a[") as string, /not a valid address/);
});

Deno.test("hasWildcard and toPattern", () => {
  assert.equal(hasWildcard(["items", WILDCARD, "qty"]), true);
  assert.equal(hasWildcard(["items", 0, "qty"]), false);
  assert.deepEqual(toPattern(["items", 3, "qty"]), ["items", WILDCARD, "qty"]);
});

Deno.test("pathsOverlap: ancestors, descendants and wildcards overlap; siblings do not", () => {
  assert.equal(pathsOverlap(["a"], ["a", "b"]), true);
  assert.equal(pathsOverlap(["a", "b"], ["a"]), true);
  assert.equal(pathsOverlap(["a", "b"], ["a", "c"]), false);
  assert.equal(pathsOverlap(["items", WILDCARD, "qty"], ["items", 2, "qty"]), true);
  assert.equal(pathsOverlap(["items", WILDCARD, "qty"], ["items", 2, "price"]), false);
  assert.equal(pathsOverlap(["items", 1], ["items", 2]), false);
  assert.equal(pathsOverlap([], ["anything"]), true);
  // a read recorded without knowing the array (`$.things.price`) meets the indexed write
  assert.equal(pathsOverlap(["things", "price"], ["things", 2, "price"]), true);
});

Deno.test("patternMatches and isPrefixOf", () => {
  assert.equal(patternMatches(["items", WILDCARD, "qty"], ["items", 4, "qty"]), true);
  assert.equal(patternMatches(["items", WILDCARD, "qty"], ["items", 4]), false);
  assert.equal(patternMatches(["items", WILDCARD], ["items", "x"]), false);
  assert.equal(isPrefixOf(["items", WILDCARD], ["items", 4, "qty"]), true);
  assert.equal(isPrefixOf(["items", 1], ["items", 4, "qty"]), false);
  assert.equal(isPrefixOf(["a", "b", "c"], ["a", "b"]), false);
});

Deno.test("pointerToPath resolves RFC 6901 pointers, '-' and escapes against the document", () => {
  const doc = { items: [{ a: 1 }, { a: 2 }], "a/b": { "c~d": 1 } };
  assert.deepEqual(pointerToPath("", doc), []);
  assert.deepEqual(pointerToPath("/items/1/a", doc), ["items", 1, "a"]);
  assert.deepEqual(pointerToPath("/items/-", doc), ["items", 2]);
  assert.deepEqual(pointerToPath("/a~1b/c~0d", doc), ["a/b", "c~d"]);
  // an object member that looks numeric stays a member name
  assert.deepEqual(pointerToPath("/map/0", { map: {} }), ["map", "0"]);
  assert.match(pointerToPath("items/0", doc) as string, /must start with '\/'/);
  assert.match(pointerToPath("/items/01", doc) as string, /not an array index/);
  assert.match(pointerToPath("/items/x", doc) as string, /not an array index/);
});

Deno.test("pathToPointer escapes '~' and '/'", () => {
  assert.equal(pathToPointer(["items", 0, "a/b", "c~d"]), "/items/0/a~1b/c~0d");
  assert.equal(pathToPointer([]), "");
});

Deno.test("parseConcretePath refuses [*] and otherwise parses like parsePath", () => {
  assert.deepEqual(parseConcretePath("$.items[0].qty"), { ok: true, path: ["items", 0, "qty"] });
  assert.deepEqual(parseConcretePath("$.items[*].qty"), {
    ok: false,
    message: "'$.items[*].qty' must be a concrete address without [*]",
  });
  assert.deepEqual(parseConcretePath("$.items.1"), parsePath("$.items.1"));
});

Deno.test("pointerToLocation writes finding locations: indices in brackets, odd members quoted", () => {
  assert.equal(pointerToLocation("", "spec"), "spec");
  assert.equal(pointerToLocation("/derivations/0/path", "spec"), "derivations[0].path");
  assert.equal(pointerToLocation("/tests/2/given/$.a~1b", "spec"), "tests[2].given['$.a/b']");
  assert.equal(pointerToLocation("/a-b/_c", "evolution"), "['a-b']._c");
});

Deno.test("formatPath writes a member after a dot exactly when it is a simple name", () => {
  const simple = /^[A-Za-z_][A-Za-z0-9_-]*$/;
  const names = [
    "a",
    "_",
    "Z9",
    "a-b",
    "a_b",
    "",
    "9a",
    "-a",
    "a b",
    "a.b",
    "é",
    "a\u0080",
    "[",
    "a'b",
    "ab$",
    "Az09_-",
  ];
  for (const name of names) {
    const expected = simple.test(name) ? `$.${name}` : `$['${name.replace(/'/g, "\\'")}']`;
    assert.equal(formatPath([name]), expected, name);
  }
});
