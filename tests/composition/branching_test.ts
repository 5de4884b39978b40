/**
 * Branching through every surface: the same template and branch flatten to
 * the same spec with the same pinned lineage over REST, the console and MCP;
 * what cannot flatten is a 422 naming why.
 */
import assert from "node:assert/strict";
import { connectStdio } from "../mcp/helpers.ts";
import { call, startTestServer } from "../server/helpers.ts";
import { baseSpec, branchSpec, consoleReplies } from "./helpers.ts";

const id = encodeURIComponent("beta/eu");

/** What every surface must agree on: the flat spec and the state after one write. */
function checkBranch(spec: Record<string, unknown>, lineage: unknown, state: unknown) {
  assert.equal(spec.id, "beta/eu");
  assert.equal(spec.template, null);
  assert.deepEqual(spec.constants, { vat: 0.22 });
  assert.deepEqual(spec.derivations, baseSpec().derivations);
  assert.deepEqual((spec.effects as { origin: unknown }[])[0].origin, {
    fromRef: "acme/base",
    fromOwner: "acme",
  });
  assert.deepEqual(spec.lineage, lineage);
  const [entry] = lineage as Record<string, string>[];
  assert.deepEqual(
    { ...entry, digest: undefined },
    { ref: "acme/base", version: "1.2.0", digest: undefined, repo: "local", owner: "acme" },
  );
  assert.match(entry.digest, /^sha256:[0-9a-f]{64}$/);
  assert.deepEqual((state as { gross: number }).gross, 61);
}

Deno.test("a branch flattens and pins its lineage alike on REST, the console and MCP", async (t) => {
  let restLineage: unknown;
  await t.step("REST", async () => {
    const server = await startTestServer();
    try {
      assert.equal((await call(server.url, "POST", "/models", baseSpec())).status, 201);
      const created = await call(server.url, "POST", "/models", branchSpec());
      assert.equal(created.status, 201, created.text);
      assert.equal(created.headers.get("location"), `/models/${id}`);
      const spec = (await call(server.url, "GET", `/models/${id}/spec`)).json;
      restLineage = (await call(server.url, "GET", `/models/${id}/lineage`)).json;
      await call(server.url, "POST", `/models/${id}/mutations`, { "$.net": 50 });
      checkBranch(spec, restLineage, (await call(server.url, "GET", `/models/${id}/state`)).json);
      assert.deepEqual(
        (await call(server.url, "GET", "/models/acme%2Fbase/lineage")).json,
        [],
        "not a branch",
      );
      assert.equal((await call(server.url, "GET", "/models/nope/lineage")).status, 404);
    } finally {
      await server.close();
    }
  });
  await t.step("console", async () => {
    const replies = await consoleReplies([
      { cmd: "create-model", spec: baseSpec() },
      { cmd: "create-model", spec: branchSpec() },
      { cmd: "get-spec", id: "beta/eu" },
      { cmd: "get-lineage", id: "beta/eu" },
      { cmd: "mutate", id: "beta/eu", mutations: { "$.net": 50 } },
      { cmd: "get-state", id: "beta/eu" },
    ]);
    assert.ok(replies.every((r) => r.ok), JSON.stringify(replies));
    const [, , spec, lineage, , state] = replies.map((r) => r.result);
    checkBranch(spec as Record<string, unknown>, lineage, state);
    assert.deepEqual(lineage, restLineage, "the same template pins the same digest");
  });
  await t.step("MCP", async () => {
    const mcp = await connectStdio();
    try {
      const tool = async (name: string, args: Record<string, unknown>) => {
        const result = await mcp.client.callTool({ name, arguments: args }) as {
          isError: boolean;
          content: { text: string }[];
        };
        assert.equal(result.isError, false, result.content[0].text);
        return JSON.parse(result.content[0].text);
      };
      await tool("create_model", { spec: baseSpec() });
      await tool("create_model", { spec: branchSpec() });
      const spec = await tool("get_spec", { id: "beta/eu" });
      const lineage = await tool("get_lineage", { id: "beta/eu" });
      await tool("mutate", { id: "beta/eu", mutations: { "$.net": 50 } });
      checkBranch(spec, lineage, await tool("get_state", { id: "beta/eu" }));
      assert.deepEqual(lineage, restLineage);
    } finally {
      await mcp.close();
    }
  });
});

Deno.test("branches: a grandchild pins the whole chain; what cannot flatten is a 422 at template", async () => {
  const server = await startTestServer();
  try {
    await call(server.url, "POST", "/models", baseSpec());
    await call(server.url, "POST", "/models", branchSpec());
    const leaf = await call(server.url, "POST", "/models", branchSpec("gamma/leaf", "beta/eu@^1.0.0"));
    assert.equal(leaf.status, 201, leaf.text);
    const lineage = (await call(server.url, "GET", "/models/gamma%2Fleaf/lineage")).json as { ref: string }[];
    assert.deepEqual(lineage.map((e) => e.ref), ["beta/eu", "acme/base"]);
    const spec = (await call(server.url, "GET", "/models/gamma%2Fleaf/spec")).json;
    assert.deepEqual(
      spec.effects[0].origin,
      { fromRef: "acme/base", fromOwner: "acme" },
      "the defining ancestor",
    );

    const refused = async (spec: unknown, location: string, message: RegExp) => {
      const reply = await call(server.url, "POST", "/models", spec);
      assert.equal(reply.status, 422, reply.text);
      const finding = reply.json.errors.find((e: { location: string }) => e.location === location);
      assert.ok(finding, JSON.stringify(reply.json));
      assert.match(finding.message, message);
    };
    await refused(branchSpec("x/a", "acme/missing"), "template.ref", /^UnresolvedReference: 'acme\/missing'/);
    await refused(branchSpec("x/b", "acme/base@^2.0.0"), "template.ref", /^UnresolvedReference/);
    await refused(branchSpec("x/c", `acme/base@sha256:${"0".repeat(64)}`), "template.ref", /^DigestMismatch/);
    await refused(branchSpec("acme/base", "gamma/leaf"), "template", /^TemplateCycle/);
    await refused(
      { id: "x/d", template: { ref: "a/b/c" }, schema: {} },
      "template.ref",
      /^InvalidReference: 'a\/b\/c' is not a reference: use \[ns\/\]name/,
    );
    await refused({ id: "x/e", template: "acme/base", schema: {} }, "template", /template must be/);
    assert.deepEqual((await call(server.url, "GET", "/models")).json, ["acme/base", "beta/eu", "gamma/leaf"]);
  } finally {
    await server.close();
  }
});

Deno.test("branches pin SemVer 2.0.0 versions: build metadata ignored, pre-releases only when pinned", async () => {
  const server = await startTestServer();
  try {
    const release = { ...baseSpec(), version: "1.0.0+build.5" };
    const candidate = { ...baseSpec(undefined, "acme/rc"), version: "2.0.0-rc.1" };
    for (const template of [release, candidate]) {
      const created = await call(server.url, "POST", "/models", template);
      assert.equal(created.status, 201, created.text);
    }
    const pinned = async (branch: string, ref: string) => {
      const created = await call(server.url, "POST", "/models", branchSpec(branch, ref));
      assert.equal(created.status, 201, created.text);
      const lineage = (await call(server.url, "GET", `/models/${encodeURIComponent(branch)}/lineage`)).json;
      return lineage.map((e: { ref: string; version: string }) => [e.ref, e.version]);
    };
    assert.deepEqual(await pinned("b/exact", "acme/base@1.0.0"), [["acme/base", "1.0.0+build.5"]]);
    assert.deepEqual(await pinned("b/caret", "acme/base@^1.0.0"), [["acme/base", "1.0.0+build.5"]]);
    assert.deepEqual(await pinned("b/rc", "acme/rc@2.0.0-rc.1"), [["acme/rc", "2.0.0-rc.1"]]);
    assert.deepEqual(await pinned("b/rc-on", "acme/rc@>=2.0.0-rc.1"), [["acme/rc", "2.0.0-rc.1"]]);
    for (const ref of ["acme/rc@>=1.0.0", "acme/rc@^2.0.0", "acme/rc@2.0.0"]) {
      const refused = await call(server.url, "POST", "/models", branchSpec("b/none", ref));
      assert.equal(refused.status, 422, refused.text);
      assert.match(refused.json.errors[0].message, /^UnresolvedReference/, ref);
    }
  } finally {
    await server.close();
  }
});

Deno.test("libraries: a template's layers are pinned in its branch; extends resolves another model's", async () => {
  const server = await startTestServer();
  const number = { type: "object", properties: { net: { type: "number" } } };
  try {
    const template = {
      id: "acme/tax",
      schema: number,
      constants: { vat: 0.2 },
      library: {
        define: '( $gross := function($x){ $x * (1 + $const.vat) }; ["gross"] )',
        requiresConstants: ["vat"],
      },
      derivations: [{ path: "$.gross", expr: "$gross(net)" }],
    };
    assert.equal((await call(server.url, "POST", "/models", template)).status, 201);
    const branch = await call(server.url, "POST", "/models", {
      ...branchSpec("beta/tax", "acme/tax"),
      library: '( $half := function($x){ $gross($x) / 2 }; ["half"] )',
      derivations: [{ path: "$.half", expr: "$half(net)" }],
    });
    assert.equal(branch.status, 201, branch.text);
    const library = (await call(server.url, "GET", "/models/beta%2Ftax/library")).json;
    assert.deepEqual(library.layers.map((l: { origin: string; ref?: string }) => [l.origin, l.ref]), [
      ["acme/tax@1.0.0", "acme/tax"],
      ["local", undefined],
    ]);
    assert.match(library.layers[0].digest, /^sha256:/);
    assert.deepEqual(
      library.exports.map((e: { name: string; origin: string }) => [e.name, e.origin]),
      [["gross", "acme/tax@1.0.0"], ["half", "local"]],
    );
    await call(server.url, "POST", "/models/beta%2Ftax/mutations", { "$.net": 100 });
    assert.deepEqual(await (await fetch(`${server.url}/models/beta%2Ftax/state`)).json(), {
      net: 100,
      gross: 122,
      half: 61,
    });

    const extending = await call(server.url, "POST", "/models", {
      id: "gamma/calc",
      schema: number,
      constants: { vat: 0.1 },
      library: {
        extends: "acme/tax@^1.0.0",
        define: '( $triple := function($x){ $gross($x) * 3 }; ["triple"] )',
      },
      derivations: [{ path: "$.t", expr: "$triple(net)" }],
    });
    assert.equal(extending.status, 201, extending.text);
    assert.deepEqual(extending.json.warnings ?? [], [], "resolved: nothing left to warn about");
    const stored = (await call(server.url, "GET", "/models/gamma%2Fcalc/spec")).json.library;
    assert.equal(stored.extends, undefined);
    assert.equal(stored.layers[0].ref, "acme/tax");
    await call(server.url, "POST", "/models/gamma%2Fcalc/mutations", { "$.net": 10 });
    assert.equal((await call(server.url, "GET", "/models/gamma%2Fcalc/state/%24.t")).json, 33);

    const refused = async (extendsRef: string, message: RegExp) => {
      const reply = await call(server.url, "POST", "/models", {
        id: "x/y",
        schema: {},
        library: { extends: extendsRef, define: '( $k := 1; ["k"] )' },
      });
      assert.equal(reply.status, 422, reply.text);
      assert.deepEqual(reply.json.errors.map((e: { location: string }) => e.location), ["library.extends"]);
      assert.match(reply.json.errors[0].message, message);
    };
    await refused("acme/none", /^UnresolvedReference: 'acme\/none'/);
    await call(server.url, "POST", "/models", { id: "plain", schema: {} });
    await refused("plain", /'plain' has no library to extend/);

    // An evolution's newLibrary extends another model's library as a create does.
    await call(server.url, "POST", "/models", { id: "delta/n", schema: number, constants: { vat: 0.5 } });
    const evolve = (newLibrary: unknown, extra: Record<string, unknown> = {}) =>
      call(server.url, "POST", "/models/delta%2Fn/spec/evolve", { newLibrary, ...extra });
    const quad = { extends: "acme/tax", define: '( $quad := function($x){ $gross($x) * 4 }; ["quad"] )' };
    const extended = await evolve(quad, { upsertDerivations: [{ path: "$.q", expr: "$quad(net)" }] });
    assert.equal(extended.status, 200, extended.text);
    await call(server.url, "POST", "/models/delta%2Fn/mutations", { "$.net": 10 });
    assert.equal((await call(server.url, "GET", "/models/delta%2Fn/state/%24.q")).json, 60);
    const layers = async () =>
      (await call(server.url, "GET", "/models/delta%2Fn/library")).json.layers.map((l: { origin: string }) =>
        l.origin
      );
    assert.deepEqual(await layers(), ["acme/tax@1.0.0", "local"]);
    // Extending the same model again replaces its pinned layers rather than stacking them.
    assert.equal((await evolve(quad)).status, 200);
    assert.deepEqual(await layers(), ["acme/tax@1.0.0", "local"]);
    const unresolved = await evolve({ ...quad, extends: "acme/none" });
    assert.equal(unresolved.status, 422, unresolved.text);
    assert.deepEqual(unresolved.json.errors.map((e: { location: string }) => e.location), [
      "library.extends",
    ]);
  } finally {
    await server.close();
  }
});

Deno.test("libraries: extends refuses a cycle, the model's own library or one that inherited it (422)", async () => {
  const server = await startTestServer();
  const twice = { type: "object", properties: { n: { type: "number", default: 2 } } };
  try {
    const base = {
      id: "lib/base",
      schema: twice,
      library: '( $twice := function($x){ $x * 2 }; ["twice"] )',
    };
    assert.equal((await call(server.url, "POST", "/models", base)).status, 201);
    const user = await call(server.url, "POST", "/models", {
      id: "app/user",
      schema: twice,
      library: { extends: "lib/base", define: '( $thrice := function($x){ $twice($x) + $x }; ["thrice"] )' },
    });
    assert.equal(user.status, 201, user.text);
    const cycle = async (newLibrary: unknown, through: string) => {
      const reply = await call(server.url, "POST", "/models/lib%2Fbase/spec/evolve", { newLibrary });
      assert.equal(reply.status, 422, reply.text);
      assert.deepEqual(reply.json.errors.map((e: { location: string }) => e.location), ["library.extends"]);
      assert.equal(
        reply.json.errors[0].message,
        `LibraryCycle: 'lib/base' would inherit its own library through '${through}'`,
      );
    };
    await cycle({ extends: "lib/base", define: '( $k := 1; ["k"] )' }, "lib/base");
    await cycle({ extends: "app/user", define: '( $k := 1; ["k"] )' }, "app/user");
    const library = (await call(server.url, "GET", "/models/lib%2Fbase/library")).json;
    assert.deepEqual(library.layers.map((l: { origin: string }) => l.origin), ["local"], "unchanged");
  } finally {
    await server.close();
  }
});
