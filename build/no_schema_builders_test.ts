import assert from "node:assert/strict";
import { withoutSchemaBuilders } from "./no_schema_builders.ts";

Deno.test("schema builders return the stand-in, the mcp, console and server-only REST members go, declaring calls are pure; everything else stays as written", () => {
  const source = `import { z } from "zod";
const ID = lazySchema(() => z.string().describe("an id"));
export const REPORT = component("Report", () => z.object({ id: ID(), nested: lazySchema(() => z.number()) }));
export const op = apiOperation({
  name: "op",
  input: () => z.object({ id: ID() }),
  output: function () { return REPORT(); },
  run: (api, { id }) => api.get(id),
  rest: [{
    input: "not a function",
    path: "/x",
    tag: "x",
    errors: { 404: { description: "", body: REPORT } },
    present: (result) => ({ tag: result.tag }),
    decode: (body) => ({ tag: body }),
  }],
  mcp: { tool: "op", kind: "read" },
  console: { command: "op" },
});
const other = call(() => 1);
const SPEC = publishedAs(() => z.unknown(), SCHEMA, "Spec");
const REGISTRY = z.registry();
`;
  const { source: out, replaced } = withoutSchemaBuilders(source);
  assert.equal(replaced, 4, "the nested builder goes with its enclosing one");
  assert.equal(
    out,
    `import { z as __inertZod } from "zod";
import { z } from "zod";
const ID = /* @__PURE__ */ lazySchema(() => __inertZod);
export const REPORT = /* @__PURE__ */ component("Report", () => __inertZod);
export const op = apiOperation({
  name: "op",
  input: () => __inertZod,
  output: function () { return __inertZod; },
  run: (api, { id }) => api.get(id),
  rest: [{
    input: "not a function",
    path: "/x",
    tag: void 0,
    errors: void 0,
    present: void 0,
    decode: (body) => ({ tag: body }),
  }],
  mcp: void 0,
  console: void 0,
});
const other = call(() => 1);
const SPEC = /* @__PURE__ */ publishedAs(() => /* @__PURE__ */ z.unknown(), SCHEMA, "Spec");
const REGISTRY = /* @__PURE__ */ z.registry();
`,
  );
  assert.deepEqual(withoutSchemaBuilders("const a = 1;\n"), { source: "const a = 1;\n", replaced: 0 });
});
