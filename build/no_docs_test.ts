import assert from "node:assert/strict";
import { DECLARATIONS, withoutAnnotations, withoutDocs } from "./no_docs.ts";

Deno.test("documenting strings are emptied; code, messages and patterns stay", () => {
  const source = `
export const op = apiOperation({
  summary: "the merged document " +
    '(optionally "at" a time)' + \`, at most \${MAX} \\\`ids\\\`\`,
  input: z.object({ at: INSTANT.describe("ISO-8601 \\"instant\\"").optional() }),
  run: (api, { id }) => { if (!id) throw badRequest("id is required"); return api.getState(id); },
  mcp: { tool: "get_state", title: 'Read "merged" state', description: \`The merged \${doc}\`, kind: "read" },
  rest: { errors: { 404: { description: "unknown model" } }, path: "/models/{id}/state" },
});
const s = { template: { ref: ref("Reference", "the template: " + "a coordinate"), pattern: "^[a-z]+$" } };
const e = { items: address("canonical address"), drop: names("ids to drop"), kinds: addresses("where") };
const v = [text("shown"), nonBlank("an id"), listOf("Effect", "the effects"), optionalAddress("where to"),
  stateMember("false hides"), objects("rows"), optionalAddress(), text(label)];
`;
  assert.equal(
    withoutDocs(source),
    `
export const op = apiOperation({
  summary: "",
  input: z.object({ at: INSTANT.describe("").optional() }),
  run: (api, { id }) => { if (!id) throw badRequest("id is required"); return api.getState(id); },
  mcp: { tool: "get_state", title: "", description: "", kind: "read" },
  rest: { errors: { 404: { description: "" } }, path: "/models/{id}/state" },
});
const s = { template: { ref: ref("Reference", ""), pattern: "^[a-z]+$" } };
const e = { items: address(""), drop: names(""), kinds: addresses("") };
const v = [text(""), nonBlank(""), listOf("Effect", ""), optionalAddress(""),
  stateMember(""), objects(""), optionalAddress(), text(label)];
`,
  );
});

Deno.test("meta-schemas lose their title and $comment strings, not members of those names", () => {
  const metaSchema = {
    title: "Meta-data vocabulary meta-schema",
    $comment: "documents the draft",
    type: ["object", "boolean"],
    properties: {
      title: { type: "string" },
      $comment: { type: "string" },
      enum: { items: [{ title: "kept" }] },
    },
    allOf: [{ $comment: '"definitions" has been replaced by "$defs".', $ref: "meta/core" }],
  };
  assert.deepEqual(withoutAnnotations(metaSchema), {
    type: ["object", "boolean"],
    properties: { title: { type: "string" }, $comment: { type: "string" }, enum: { items: [{}] } },
    allOf: [{ $ref: "meta/core" }],
  });
});

Deno.test("the declaring modules are the operations, the spec schemas and the guidance menu", () => {
  const engine = new URL("../engine/", import.meta.url).pathname;
  for (
    const path of ["operations/reads", "model/model_spec_schema", "evolve/schema", "authoring/guidance/menu"]
  ) {
    assert.ok(DECLARATIONS.test(`${engine}${path}.ts`), path);
  }
  for (const path of ["authoring/guidance/topics", "model/compile"]) {
    assert.ok(!DECLARATIONS.test(`${engine}${path}.ts`), path);
  }
});
