/**
 * `/v3/api-docs` is generated from the route table the app registers: every
 * registered route is documented with its parameters, bodies and responses,
 * and every schema reference resolves.
 */
import assert from "node:assert/strict";
import { ROUTES } from "../../server/routes/mod.ts";
import { inProcessServer } from "./helpers.ts";

// deno-lint-ignore no-explicit-any
type Doc = any;

function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refs(n, out));
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") out.push(value);
      else refs(value, out);
    }
  }
  return out;
}

Deno.test("the document lists every registered route with its parameters, bodies and responses", async () => {
  const server = await inProcessServer();
  const app = server.app;
  try {
    const res = await app.request("/v3/api-docs");
    assert.equal(res.status, 200);
    const doc: Doc = await res.json();
    assert.equal(doc.openapi, "3.1.0");
    assert.equal(doc.components.securitySchemes.bearerAuth.scheme, "bearer");

    // Middleware is no route: on every path (`ALL`), or the pages' on every GET path (`GET /*`).
    const registered = app.routes
      .filter((r) => r.method !== "ALL" && r.path !== "/*")
      .map((r) => `${r.method} ${r.path.replace(/:([^/]+)/g, "{$1}")}`);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${path}`)
    );
    assert.deepEqual([...new Set(registered)].sort(), documented.sort());
    assert.equal(documented.length, ROUTES.length);

    const operationIds = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops as Record<string, Doc>)) {
        const where = `${method} ${path}`;
        assert.ok(!operationIds.has(op.operationId), `unique operationId ${op.operationId}`);
        operationIds.add(op.operationId);
        assert.ok(op.summary, where);
        const pathParams = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
        const declared = (op.parameters ?? []).filter((p: Doc) => p.in === "path").map((p: Doc) => p.name);
        assert.deepEqual(declared.sort(), pathParams.sort(), `${where} declares its path parameters`);
        for (const p of op.parameters ?? []) assert.ok(p.schema && p.description, `${where} ${p.name}`);
        assert.ok(
          Object.keys(op.responses).some((s) => /^[12]\d\d$/.test(s)),
          `${where} has a success response`,
        );
        const bodiless = [
          "/models/{id}/snapshot",
          "/admin/blobs/gc",
          "/models/{id}/effects/{effectId}/approve",
          "/pair",
          "/pair/session",
        ];
        if (method === "post" && !bodiless.includes(path)) {
          assert.ok(op.requestBody?.content, `${where} documents its body`);
          assert.ok(op.responses["413"], `${where} documents the body cap`);
        }
        if (["/actuator/health", "/actuator/info", "/pair", "/pair/token"].includes(path)) {
          assert.deepEqual(op.security, []);
        } else {
          assert.deepEqual(
            op.responses["401"]?.content?.["application/json"],
            { schema: { $ref: "#/components/schemas/Unauthorized" } },
            `${where} documents the key gate's 401 as it is sent`,
          );
          // A route's own 401 (GET /pair/session without a session) has that one shape too.
          assert.deepEqual(Object.keys(op.responses["401"].content), ["application/json"], where);
        }
      }
    }
    for (const ref of refs(doc.paths)) {
      assert.ok(doc.components.schemas[ref.replace("#/components/schemas/", "")], `${ref} resolves`);
    }
    for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, Doc>)) {
      for (const ref of refs(schema)) {
        // An embedded resource ($id) resolves `#/$defs/...` against itself.
        const target = ref.startsWith("#/$defs/") && schema.$id
          ? schema.$defs?.[ref.slice("#/$defs/".length)]
          : doc.components.schemas[ref.replace("#/components/schemas/", "")];
        assert.ok(target, `${ref} in ${name} resolves`);
      }
    }
  } finally {
    await server.close();
  }
});

Deno.test("the document carries the spec's statuses for the main routes", async () => {
  const server = await inProcessServer();
  const app = server.app;
  try {
    const doc: Doc = await (await app.request("/v3/api-docs")).json();
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path][method].responses).sort();
    assert.deepEqual(statuses("/models", "post"), ["201", "400", "401", "409", "413", "415", "422", "429"]);
    assert.deepEqual(statuses("/models/{id}/mutations", "post"), [
      "200",
      "400",
      "401",
      "404",
      "409",
      "413",
      "415",
      "422",
      "429",
    ]);
    assert.deepEqual(statuses("/admin/blobs/gc", "post"), ["200", "400", "401", "403", "409", "429"]);
    const mutate = doc.paths["/models/{id}/mutations"].post;
    assert.ok(mutate.parameters.some((p: Doc) => p.in === "header" && p.name === "X-View"));
    assert.deepEqual(Object.keys(doc.paths["/models/{id}/mutations/patch"].post.requestBody.content), [
      "application/json-patch+json",
      "application/json",
    ]);
  } finally {
    await server.close();
  }
});

Deno.test("a body of named members requires the members the operation requires, whatever their type", async () => {
  const server = await inProcessServer();
  try {
    const doc: Doc = await (await server.app.request("/v3/api-docs")).json();
    const required = (path: string) =>
      doc.paths[path].post.requestBody.content["application/json"].schema.required;
    // currentSpec takes any JSON (a spec), yet may not be left out.
    assert.deepEqual(required("/models/generate/evolution/preview"), [
      "modelId",
      "currentSpec",
      "evolutionRequest",
    ]);
    assert.deepEqual(required("/models/{id}/promote"), ["toRepo"]);
    assert.deepEqual(required("/models/{id}/spec/evolve/ai"), ["description"]);
  } finally {
    await server.close();
  }
});
