import assert from "node:assert/strict";
import fastUri from "fast-uri";
import { parse, resolve, serialize } from "./uri.ts";

/** RFC 3986 section 5.4: every normal and abnormal example, against base `http://a/b/c/d;p?q`. */
const RFC_EXAMPLES: [string, string][] = [
  ["g:h", "g:h"],
  ["g", "http://a/b/c/g"],
  ["./g", "http://a/b/c/g"],
  ["g/", "http://a/b/c/g/"],
  ["/g", "http://a/g"],
  ["//g", "http://g"],
  ["?y", "http://a/b/c/d;p?y"],
  ["g?y", "http://a/b/c/g?y"],
  ["#s", "http://a/b/c/d;p?q#s"],
  ["g#s", "http://a/b/c/g#s"],
  ["g?y#s", "http://a/b/c/g?y#s"],
  [";x", "http://a/b/c/;x"],
  ["g;x", "http://a/b/c/g;x"],
  ["g;x?y#s", "http://a/b/c/g;x?y#s"],
  ["", "http://a/b/c/d;p?q"],
  [".", "http://a/b/c/"],
  ["./", "http://a/b/c/"],
  ["..", "http://a/b/"],
  ["../", "http://a/b/"],
  ["../g", "http://a/b/g"],
  ["../..", "http://a/"],
  ["../../", "http://a/"],
  ["../../g", "http://a/g"],
  ["../../../g", "http://a/g"],
  ["../../../../g", "http://a/g"],
  ["/./g", "http://a/g"],
  ["/../g", "http://a/g"],
  ["g.", "http://a/b/c/g."],
  [".g", "http://a/b/c/.g"],
  ["g..", "http://a/b/c/g.."],
  ["..g", "http://a/b/c/..g"],
  ["./../g", "http://a/b/g"],
  ["./g/.", "http://a/b/c/g/"],
  ["g/./h", "http://a/b/c/g/h"],
  ["g/../h", "http://a/b/c/h"],
  ["g;x=1/./y", "http://a/b/c/g;x=1/y"],
  ["g;x=1/../y", "http://a/b/c/y"],
  ["g?y/./x", "http://a/b/c/g?y/./x"],
  ["g?y/../x", "http://a/b/c/g?y/../x"],
  ["g#s/./x", "http://a/b/c/g#s/./x"],
  ["g#s/../x", "http://a/b/c/g#s/../x"],
];

Deno.test("references resolve as RFC 3986 section 5.4 says", () => {
  for (const [reference, expected] of RFC_EXAMPLES) {
    assert.equal(resolve("http://a/b/c/d;p?q", reference), expected, reference);
  }
});

/** The ids and references ajv meets in the engine's schemas: local pointers, the 2020-12 meta-schemas. */
const AJV_CASES: [string, string][] = [
  ["", "#/$defs/Item"],
  ["", "#"],
  ["", ""],
  ["", "#/properties/items/items"],
  ["", "#/$defs/My%20Type"],
  ["https://json-schema.org/draft/2020-12/schema", "meta/core"],
  ["https://json-schema.org/draft/2020-12/schema", "meta/applicator"],
  ["https://json-schema.org/draft/2020-12/schema", "#meta"],
  ["https://json-schema.org/draft/2020-12/meta/core", "#/$defs/anchorString"],
  ["https://json-schema.org/draft/2020-12/meta/core", "https://json-schema.org/draft/2020-12/meta/core"],
  ["https://json-schema.org/draft/2020-12/meta/validation", "#/$defs/simpleTypes"],
  ["http://json-schema.org/draft-07/schema", "#/definitions/nonNegativeInteger"],
  ["https://example.com/schemas/order.json", "item.json#/properties/qty"],
  ["https://example.com/schemas/", "../common/types.json"],
];

Deno.test("the references ajv meets resolve, parse and serialise as fast-uri (ajv's default) does", () => {
  for (const [base, reference] of AJV_CASES) {
    assert.equal(resolve(base, reference), fastUri.resolve(base, reference), `${base} + ${reference}`);
    const id = resolve(base, reference);
    assert.equal(serialize(parse(id)), fastUri.serialize(fastUri.parse(id)), id);
    assert.equal(parse(id).fragment, fastUri.parse(id).fragment, `${id}: fragment`);
  }
});
