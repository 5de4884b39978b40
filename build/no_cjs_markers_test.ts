import assert from "node:assert/strict";
import { withoutMarkers } from "./no_cjs_markers.ts";

const AJV_FILE = "/p/node_modules/.deno/ajv@8.20.0/node_modules/ajv/dist/compile/rules.js";
const OTHER_FILE = "/p/node_modules/.deno/fast-deep-equal@3.1.3/node_modules/fast-deep-equal/index.js";

Deno.test("use strict directives go from every package file, __esModule markers and placeholders from ajv's only", () => {
  const source = `"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.y = exports.x = void 0;
exports.x = { "use strict": 1, note: "'use strict';" };
function f(a){"use strict";return a}
`;
  assert.equal(
    withoutMarkers(source, AJV_FILE),
    `


exports.x = { "use strict": 1, note: "'use strict';" };
function f(a){return a}
`,
  );
  assert.equal(
    withoutMarkers(source, OTHER_FILE),
    `
Object.defineProperty(exports, "__esModule", { value: true });
exports.y = exports.x = void 0;
exports.x = { "use strict": 1, note: "'use strict';" };
function f(a){return a}
`,
  );
});

Deno.test("every export placeholder of ajv's files goes", async () => {
  const dist = new URL(".", import.meta.resolve("ajv/dist/2020.js")).pathname;
  let files = 0;
  for await (const path of walkJs(dist)) {
    files++;
    assert.doesNotMatch(
      withoutMarkers(await Deno.readTextFile(path), path),
      /^exports\.\w+ = .*void 0;$/m,
      path,
    );
  }
  assert.ok(files > 50);
});

async function* walkJs(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) yield* walkJs(`${path}/`);
    else if (path.endsWith(".js")) yield path;
  }
}

Deno.test("ajv's option notes and compileAsync's loader go from its core.js, and a core.js without them stops the build", async () => {
  const core = new URL(import.meta.resolve("ajv/dist/core.js")).pathname;
  const source = await Deno.readTextFile(core);
  const lean = withoutMarkers(source, core);
  assert.match(lean, /^const removedOptions = \{\};$/m);
  assert.match(lean, /^const deprecatedOptions = \{\};$/m);
  assert.doesNotMatch(lean, /Map is used as cache/);
  // compileAsync keeps its check of loadSchema and loads nothing.
  assert.match(
    lean,
    /"options\.loadSchema should be a function"\);\n {8}\}\n {8}throw new Error\("ajv's loadSchema/,
  );
  assert.doesNotMatch(lean, /_loadSchema|loadMissingSchema/);
  // Other files keep such text; a core.js written otherwise is refused, not shipped with the notes.
  assert.equal(
    withoutMarkers("const removedOptions = {\n  a: 1,\n};", OTHER_FILE),
    "const removedOptions = {\n  a: 1,\n};",
  );
  assert.throws(
    () => withoutMarkers("const removedOptions = { a: 1 };", "/p/node_modules/ajv/dist/core.js"),
    /option tables/,
  );
  assert.throws(
    () => withoutMarkers(source.replace("const { loadSchema }", "const { load }"), core),
    /compileAsync's loader/,
  );
});

Deno.test("ajv's code for coerceTypes and strictTypes goes, and a file without it stops the build", async () => {
  const dataType = new URL(import.meta.resolve("ajv/dist/compile/validate/dataType.js")).pathname;
  const source = await Deno.readTextFile(dataType);
  const lean = withoutMarkers(source, dataType);
  assert.doesNotMatch(lean, /coerceSpecificType|parentDataProperty/);
  assert.match(lean, /^function coerceData\(it\) \{\n {4}throw new Error\("ajv's coerceTypes is not/m);
  // The rest of the file (the type checks every schema compiles with) stays as it was.
  assert.match(lean, /^function checkDataTypes\(/m);
  assert.throws(
    () => withoutMarkers(source.replace("function coerceData(", "function coerce("), dataType),
    /ajv.s dataType.js no longer holds coerceData/,
  );
  const validate = new URL(import.meta.resolve("ajv/dist/compile/validate/index.js")).pathname;
  const checks = withoutMarkers(await Deno.readTextFile(validate), validate);
  // Called for every schema: it returns without strictTypes, and throws with it.
  assert.match(
    checks,
    /^function checkStrictTypes\(it\) \{\n {4}if \(!it\.opts\.strictTypes \|\| it\.schemaEnv\.meta\) return;\n {4}throw /m,
  );
  assert.doesNotMatch(checks, /strictTypesError|narrowSchemaTypes|allowUnionTypes/);
  for (const [stub, option] of [["destructureValCxtES5", "code.es5"], ["commentKeyword", "\\$comment"]]) {
    assert.match(
      checks,
      new RegExp(`^function ${stub}\\(it\\) \\{\\n {4}throw new Error\\("ajv's ${option} is not`, "m"),
    );
  }
  assert.doesNotMatch(checks, /\.logger\.log\(/);
  assert.match(checks, /^class KeywordCxt \{/m);
  const keyword = new URL(import.meta.resolve("ajv/dist/compile/validate/keyword.js")).pathname;
  const keywords = withoutMarkers(await Deno.readTextFile(keyword), keyword);
  assert.match(
    keywords,
    /^function funcKeywordCode\(it\) \{\n {4}throw new Error\("ajv's keyword code from a function/m,
  );
  assert.doesNotMatch(keywords, /modifyData|useKeyword|async keyword in sync schema/);
  assert.match(keywords, /^function validateKeywordUsage\(/m);
  const core = new URL(import.meta.resolve("ajv/dist/core.js")).pathname;
  const leanCore = withoutMarkers(await Deno.readTextFile(core), core);
  for (const method of ["removeSchema", "removeKeyword", "$dataMetaSchema"]) {
    assert.ok(
      leanCore.includes(`    ${method}() {\n        throw new Error("ajv's ${method} is not in`),
      method,
    );
  }
  assert.doesNotMatch(leanCore, /_removeAllSchemas|ajv\.removeSchema: invalid parameter/);
  assert.match(leanCore, /^ {4}getSchema\(keyRef\) \{$/m);
});

Deno.test("every keyword of the engine's ajv instances writes its code itself, so no function keyword is left out", async () => {
  const { Ajv2020 } = await import("ajv/dist/2020.js");
  const { formatLimitDefinition } = await import("ajv-formats/dist/limit.js");
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  ajv.addKeyword(formatLimitDefinition);
  const rules =
    (ajv as unknown as { RULES: { all: Record<string, { definition?: Record<string, unknown> }> } })
      .RULES.all;
  const byFunction = Object.entries(rules).filter(([, rule]) =>
    rule.definition && ("macro" in rule.definition || rule.definition.compile || rule.definition.validate)
  );
  assert.ok(Object.keys(rules).length > 40);
  assert.deepEqual(byFunction.map(([name]) => name), []);
});
