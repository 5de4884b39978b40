import assert from "node:assert/strict";
import { webPlatform } from "../ports.ts";
import type { Effect, ModelSpec } from "../model/types.ts";
import { effectGate } from "../runtime/effects.ts";
import { compareVersions, ownerOf, parseCoordinate, satisfies } from "./coordinate.ts";
import { flatten, TemplateError } from "./flatten.ts";
import { approved, definitionHash, pendingEffects, stampDefinitionHashes } from "./quarantine.ts";
import { type Repository, ResolutionError, resolveRef, specDigest } from "./repository.ts";
import { checkTopology, linkEdges } from "./topology.ts";

const { hasher } = webPlatform();

const repo = (id: string, specs: ModelSpec[]): Repository => ({
  id,
  repoClass: "web",
  fetch: (identity) => Promise.resolve(specs.find((s) => s.id === identity) ?? null),
});

Deno.test("coordinates: grammar, owner, pins", () => {
  assert.deepEqual(parseCoordinate("acme.eu/base@^1.2.0"), {
    identity: "acme.eu/base",
    namespace: "acme.eu",
    name: "base",
    pin: { kind: "range", operator: "^", version: "1.2.0" },
  });
  assert.deepEqual(parseCoordinate("base")?.pin, { kind: "any" });
  assert.deepEqual(parseCoordinate("a/b@2.0.0")?.pin, { kind: "range", operator: "=", version: "2.0.0" });
  for (const bad of ["", "1a/b", "a/b/c", "a@1@2", "a/b@", "a@sha256:12", "a@^x", 7, null]) {
    assert.equal(parseCoordinate(bad), null, String(bad));
  }
  assert.equal(ownerOf("acme/base@1.0.0"), "acme");
  assert.equal(ownerOf("base"), null);
  assert.ok(compareVersions("1.10.0", "1.9.9") > 0);
  const pin = (ref: string) => parseCoordinate(ref)!.pin;
  assert.ok(satisfies(pin("a@^1.2.0"), "1.9.0", ""));
  assert.ok(!satisfies(pin("a@^1.2.0"), "2.0.0", ""));
  assert.ok(!satisfies(pin("a@^1.2.0"), "1.1.0", ""));
  assert.ok(satisfies(pin("a@~1.2.0"), "1.2.7", ""));
  assert.ok(!satisfies(pin("a@~1.2.0"), "1.3.0", ""));
  assert.ok(satisfies(pin("a@<2.0.0"), "1.0.0", ""));
  const digest = `sha256:${"ab".repeat(32)}`;
  assert.ok(satisfies(pin(`a@${digest}`), "9.9.9", digest));
  assert.ok(!satisfies(pin(`a@${digest}`), "9.9.9", `sha256:${"cd".repeat(32)}`));
});

Deno.test("coordinates: SemVer 2.0.0 precedence (semver.org §11); build metadata ignored", () => {
  const chain = [
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0-rc.1",
    "1.0.0",
  ];
  for (let i = 0; i < chain.length; i++) {
    for (let j = 0; j < chain.length; j++) {
      assert.equal(
        Math.sign(compareVersions(chain[i], chain[j])),
        Math.sign(i - j),
        `${chain[i]} vs ${chain[j]}`,
      );
    }
  }
  assert.deepEqual([...chain].reverse().sort(compareVersions), chain);
  assert.ok(compareVersions("1.0.0", "2.0.0") < 0);
  assert.ok(compareVersions("2.1.1", "2.1.0") > 0);
  assert.ok(compareVersions("1.0.0-rc.1", "0.9.9") > 0, "the core decides first");
  assert.ok(compareVersions("1.0.0-2", "1.0.0-10") < 0, "numeric identifiers numerically");
  assert.ok(compareVersions("1.0.0-10", "1.0.0-1a") < 0, "numeric below alphanumeric");
  assert.ok(compareVersions("1.0.0-B", "1.0.0-a") < 0, "alphanumeric in ASCII order");
  assert.ok(compareVersions("12345678901234567890.0.0", "12345678901234567891.0.0") < 0, "any size");
  assert.equal(compareVersions("1.0.0+build.5", "1.0.0"), 0);
  assert.equal(compareVersions("1.0.0-rc.1+a", "1.0.0-rc.1+b.2"), 0);
  assert.ok(compareVersions("v1", "0.0.0-0") < 0, "a non-semver sorts first");
  assert.deepEqual(parseCoordinate("acme/rc@2.0.0-rc.1+b.7")?.pin, {
    kind: "range",
    operator: "=",
    version: "2.0.0-rc.1+b.7",
  });
  assert.deepEqual(parseCoordinate("acme/rc@>= 2.0.0-0")?.pin, {
    kind: "range",
    operator: ">=",
    version: "2.0.0-0",
  });
  for (
    const bad of ["a@1.0.0-01", "a@01.0.0", "a@1.0.0-", "a@1.0.0+", "a@1.0.0-a..b", "a@1.0.0+b..c", "a@1.0"]
  ) {
    assert.equal(parseCoordinate(bad), null, bad);
  }
});

Deno.test("coordinates: a pre-release satisfies a range only when the pin names one of its MAJOR.MINOR.PATCH", () => {
  const cases: [string, string, boolean][] = [
    // `=` (or no operator): equal precedence, build metadata ignored
    ["1.0.0", "1.0.0+build.5", true],
    ["=1.0.0+other", "1.0.0+build.5", true],
    ["2.0.0-rc.1", "2.0.0-rc.1", true],
    ["2.0.0-rc.1", "2.0.0-rc.2", false],
    ["2.0.0-rc.1", "2.0.0", false],
    ["2.0.0", "2.0.0-rc.1", false],
    // >=
    [">=1.0.0", "2.0.0", true],
    [">=1.0.0", "1.0.0+build.5", true],
    [">=1.0.0", "2.0.0-rc.1", false],
    [">=2.0.0-rc.1", "2.0.0-rc.1", true],
    [">=2.0.0-rc.1", "2.0.0-rc.2", true],
    [">=2.0.0-rc.1", "2.0.1", true],
    [">=2.0.0-rc.1", "2.0.0-beta", false],
    [">=2.0.0-rc.1", "2.0.1-rc.1", false],
    // >
    [">2.0.0-rc.1", "2.0.0-rc.1", false],
    [">2.0.0-rc.1", "2.0.0-rc.1.1", true],
    [">2.0.0-rc.1", "2.0.0", true],
    [">1.0.0", "1.0.0+build.5", false],
    [">1.0.0", "1.0.1-alpha", false],
    // <=
    ["<=2.0.0-rc.2", "2.0.0-rc.1", true],
    ["<=2.0.0-rc.2", "1.9.0", true],
    ["<=2.0.0-rc.2", "2.0.0", false],
    ["<=2.0.0", "2.0.0+build.1", true],
    ["<=2.0.0", "2.0.0-rc.1", false],
    // <
    ["<2.0.0", "1.9.9", true],
    ["<2.0.0", "2.0.0-rc.1", false],
    ["<2.0.0", "1.5.0-alpha", false],
    ["<2.0.0-rc.1", "2.0.0-alpha", true],
    ["<2.0.0-rc.1", "1.5.0-alpha", false],
    // ^
    ["^1.0.0", "1.1.0", true],
    ["^1.0.0", "1.0.0+build.5", true],
    ["^1.0.0", "1.1.0-alpha", false],
    ["^1.0.0-beta", "1.0.0-rc.1", true],
    ["^1.0.0-beta", "1.4.0", true],
    ["^1.0.0-beta", "1.0.0-alpha", false],
    ["^1.0.0-beta", "1.4.0-alpha", false],
    ["^1.0.0-beta", "2.0.0", false],
    // ~
    ["~1.2.0", "1.2.3+build", true],
    ["~1.2.0", "1.2.3-alpha", false],
    ["~1.2.0-alpha", "1.2.0-alpha.1", true],
    ["~1.2.0-alpha", "1.2.5", true],
    ["~1.2.0-alpha", "1.2.5-alpha", false],
    ["~1.2.0-alpha", "1.3.0", false],
  ];
  for (const [spec, version, expected] of cases) {
    const coordinate = parseCoordinate(`a@${spec}`);
    assert.ok(coordinate, spec);
    assert.equal(satisfies(coordinate.pin, version, ""), expected, `${version} against @${spec}`);
  }
  assert.ok(satisfies({ kind: "any" }, "2.0.0-rc.1", ""), "no pin takes any version");
});

Deno.test("resolution: versions with a pre-release or build metadata resolve by their pins", async () => {
  const chain = [
    repo("first", [
      { id: "acme/base", version: "1.0.0+build.5", schema: {} },
      { id: "acme/rc", version: "2.0.0-rc.1", schema: {} },
    ]),
    repo("second", [{ id: "acme/rc", version: "2.0.0", schema: {} }]),
  ];
  const pinned = async (ref: string) => {
    const { repo, version } = await resolveRef(ref, chain, hasher);
    return [repo, version];
  };
  for (const ref of ["acme/base@1.0.0", "acme/base@^1.0.0", "acme/base@~1.0.0", "acme/base@=1.0.0+build.9"]) {
    assert.deepEqual(await pinned(ref), ["first", "1.0.0+build.5"], ref);
  }
  assert.deepEqual(await pinned("acme/rc@2.0.0-rc.1"), ["first", "2.0.0-rc.1"]);
  assert.deepEqual(await pinned("acme/rc@>=2.0.0-rc.1"), ["first", "2.0.0-rc.1"]);
  assert.deepEqual(await pinned("acme/rc@^2.0.0"), ["second", "2.0.0"], "the pre-release is passed over");
  assert.deepEqual(await pinned("acme/rc@>=1.0.0"), ["second", "2.0.0"]);
  await assert.rejects(
    resolveRef("acme/rc@<2.0.0", chain, hasher),
    (err: ResolutionError) => err.code === "UnresolvedReference",
  );
});

Deno.test("resolution: through the chain in order; digest pins checked; misses named", async () => {
  const old: ModelSpec = { id: "acme/base", version: "1.0.0", schema: {} };
  const newer: ModelSpec = { id: "acme/base", version: "1.4.0", schema: {} };
  const chain = [repo("first", [old]), repo("second", [newer])];
  assert.equal((await resolveRef("acme/base", chain, hasher)).repo, "first");
  const ranged = await resolveRef("acme/base@^1.2.0", chain, hasher);
  assert.deepEqual([ranged.repo, ranged.version, ranged.owner], ["second", "1.4.0", "acme"]);
  const digest = await specDigest(newer, hasher);
  assert.equal((await resolveRef(`acme/base@${digest}`, chain, hasher)).repo, "second");
  await assert.rejects(
    resolveRef(`acme/base@sha256:${"0".repeat(64)}`, chain, hasher),
    (err: ResolutionError) => err.code === "DigestMismatch" && /first holds acme\/base/.test(err.message),
  );
  await assert.rejects(
    resolveRef("acme/none", chain, hasher),
    (err: ResolutionError) => err.code === "UnresolvedReference" && /first, second/.test(err.message),
  );
  await assert.rejects(
    resolveRef("a/b/c", chain, hasher),
    (err: ResolutionError) => err.code === "InvalidReference",
  );
});

Deno.test("resolution: a version pin nothing takes names the versions held, a few at most", async () => {
  const at = (version: string): ModelSpec => ({ id: "lib/base", version, schema: {} });
  const two = [repo("local", [at("1.1.0")]), repo("hub", []), repo("mirror", [at("2.0.0")])];
  await assert.rejects(resolveRef("lib/base@1.0.0", two, hasher), {
    name: "ResolutionError",
    message:
      "'lib/base@1.0.0' is not found in any repository (local, hub, mirror); held: 1.1.0 in local, 2.0.0 in mirror",
  });
  const many = ["1.1.0", "1.2.0", "1.3.0", "1.4.0"].map((v, i) => repo(`r${i}`, [at(v)]));
  await assert.rejects(resolveRef("lib/base@^2.0.0", many, hasher), {
    message:
      "'lib/base@^2.0.0' is not found in any repository (r0, r1, r2, r3); held: 1.1.0 in r0, 1.2.0 in r1, 1.3.0 in r2, …",
  });
});

const BASE: ModelSpec = {
  id: "acme/base",
  version: "2.1.0",
  schema: { type: "object", properties: { net: { type: "number" } } },
  constants: { vat: 0.2, unit: "EUR" },
  derivations: [{ path: "$.gross", expr: "net * (1 + $const.vat)" }, { path: "$.tax", expr: "gross - net" }],
  metaDerivations: [{ path: "$.net", property: "required", expr: "true" }],
  constraints: [{ id: "positive", expr: "net >= 0", message: "net must not be negative" }],
  defaultValues: [{ path: "$.net", value: 0 }],
  effects: [
    { id: "push", executor: "server", trigger: "net > 0", request: { url: "https://example.com/a" } },
    { id: "tell", executor: "caller", trigger: "net > 100" },
  ],
  tests: [{ description: "base", given: { "$.net": 10 }, expect: { "$.gross": 12 } }],
  viewDefinition: { views: [] },
} as unknown as ModelSpec;

async function resolvedBase(spec = BASE) {
  return await resolveRef(spec.id, [repo("local", [spec])], hasher);
}

Deno.test("flatten: the merge rules of decisions/composition.md", async () => {
  const branch = {
    id: "beta/eu",
    version: "0.1.0",
    template: { ref: "acme/base" },
    schema: {},
    constants: { vat: 0.22 },
    derivations: [{ path: "$.tax", expr: "$round(gross - net, 2)" }, { path: "$.label", expr: "'eu'" }],
    constraints: [{ id: "cap", expr: "net < 1000" }],
    effects: [{
      id: "tell",
      executor: "caller",
      trigger: "net > 5",
      origin: { fromRef: "x", fromOwner: "x" },
    }],
    tests: [],
  } as unknown as ModelSpec;
  const flat = flatten(branch, await resolvedBase()) as unknown as Record<string, unknown>;
  assert.equal(flat.id, "beta/eu");
  assert.equal(flat.version, "0.1.0", "the version is not inherited");
  assert.deepEqual(flat.schema, BASE.schema, "an empty schema takes the template's");
  assert.deepEqual(flat.constants, { vat: 0.22, unit: "EUR" });
  assert.deepEqual(flat.derivations, [
    { path: "$.gross", expr: "net * (1 + $const.vat)" },
    { path: "$.tax", expr: "$round(gross - net, 2)" },
    { path: "$.label", expr: "'eu'" },
  ], "replaced in place, new ones appended");
  assert.deepEqual((flat.constraints as { id: string }[]).map((c) => c.id), ["positive", "cap"]);
  assert.deepEqual(flat.metaDerivations, BASE.metaDerivations);
  assert.deepEqual(flat.defaultValues, BASE.defaultValues);
  assert.deepEqual(flat.effects, [
    { ...BASE.effects![0], origin: { fromRef: "acme/base", fromOwner: "acme" } },
    { id: "tell", executor: "caller", trigger: "net > 5" },
  ], "inherited effects name their origin; the branch's own carry none (a claimed origin is dropped)");
  assert.deepEqual(flat.tests, BASE.tests, "empty tests take the template's");
  assert.deepEqual(flat.viewDefinition, BASE.viewDefinition);
  assert.equal(flat.template, null);
  const digest = await specDigest(BASE, hasher);
  assert.deepEqual(flat.lineage, [{
    ref: "acme/base",
    version: "2.1.0",
    digest,
    repo: "local",
    owner: "acme",
  }]);
});

Deno.test("flatten: the whole chain nearest first, origins from the defining ancestor, cycles refused", async () => {
  const middle = flatten(
    { id: "beta/mid", template: { ref: "acme/base" }, schema: {} } as unknown as ModelSpec,
    await resolvedBase(),
  );
  const leaf = flatten(
    { id: "gamma/leaf", template: { ref: "beta/mid" }, schema: {} } as unknown as ModelSpec,
    await resolveRef("beta/mid", [repo("hub", [middle])], hasher),
  );
  assert.deepEqual((leaf.lineage as { ref: string; repo: string }[]).map((e) => [e.ref, e.repo]), [
    ["beta/mid", "hub"],
    ["acme/base", "local"],
  ]);
  assert.deepEqual((leaf.effects![0] as Effect).origin, { fromRef: "acme/base", fromOwner: "acme" });
  const selfRef = await resolveRef("beta/mid", [repo("hub", [middle])], hasher);
  assert.throws(
    () =>
      flatten(
        { id: "acme/base", template: { ref: "beta/mid" }, schema: {} } as unknown as ModelSpec,
        selfRef,
      ),
    (err: TemplateError) =>
      err.code === "TemplateCycle" && /acme\/base -> beta\/mid -> acme\/base/.test(err.message),
  );
});

Deno.test("flatten: an origin that names none of the template's ancestors is the template's own", async () => {
  // A template fetched from a repository claims an effect came from the branch owner's namespace.
  const claimed = {
    ...BASE,
    effects: [{ ...(BASE.effects![0] as Effect), origin: { fromRef: "beta/hub", fromOwner: "beta" } }],
  } as unknown as ModelSpec;
  const branch = flatten(
    { id: "beta/eu", template: { ref: "acme/base" }, schema: {} } as unknown as ModelSpec,
    await resolvedBase(claimed),
  );
  assert.deepEqual((branch.effects![0] as Effect).origin, { fromRef: "acme/base", fromOwner: "acme" });
});

Deno.test("quarantine: a template's approval does not come along; hashes change with executable bytes", async () => {
  const push = BASE.effects![0] as unknown as Record<string, unknown>;
  const hash = await definitionHash(push as never, hasher);
  const sneaky = {
    ...BASE,
    effects: [{ ...push, approval: { definitionHash: hash } }],
  } as unknown as ModelSpec;
  const flat = await stampDefinitionHashes(
    flatten(
      { id: "beta/eu", template: { ref: "acme/base" }, schema: {} } as unknown as ModelSpec,
      await resolvedBase(sneaky),
    ),
    hasher,
  );
  const effect = flat.effects![0];
  assert.equal(effect.approval, undefined);
  assert.equal(effect.definitionHash, hash, "origin, description and approval are not executable");
  assert.equal(effectGate(effect, "beta/eu", "approve"), "blocked");
  assert.equal(effectGate(effect, "beta/eu", "deny"), "skip");
  assert.equal(effectGate(effect, "beta/eu", "allow"), "run");
  assert.equal(effectGate(effect, "acme/eu", "approve"), "run", "same owner");
  assert.equal(
    effectGate({ ...effect, executor: "caller" }, "beta/eu", "approve"),
    "run",
    "caller is never gated",
  );
  assert.deepEqual(pendingEffects(flat, "approve", () => null).map((p) => p.effectId), ["push"]);

  const ok = approved(flat, "push", "2026-01-01T00:00:00Z");
  assert.equal(effectGate(ok.effects![0], "beta/eu", "approve"), "run");
  assert.deepEqual(pendingEffects(ok, "approve", () => null), []);
  const edited = await stampDefinitionHashes(
    { ...ok, effects: [{ ...ok.effects![0], request: { url: "https://example.com/b" } }] },
    hasher,
  );
  assert.notEqual(edited.effects![0].definitionHash, hash);
  assert.equal(
    effectGate(edited.effects![0], "beta/eu", "approve"),
    "blocked",
    "an edit quarantines it again",
  );
});

Deno.test("topology: unregistered targets unless lazy; every link on a cycle guarded", async () => {
  const link = (id: string, ref: string, guarded: boolean) => ({
    id,
    executor: "server",
    trigger: "true",
    target: { ref, path: "$.in" },
    body: "1",
    ...(guarded ? { statusPath: "$.io." + id, dedupeKey: "1" } : {}),
  });
  const a = { id: "a", schema: {}, effects: [link("toB", "b", false)] } as unknown as ModelSpec;
  const b = { id: "b", schema: {}, effects: [link("toA", "a", true)] } as unknown as ModelSpec;
  assert.deepEqual(linkEdges(a).map((e) => [e.from, e.to, e.kind, e.guarded]), [["a", "b", "write", false]]);
  const none = (ref: string) => Promise.resolve(`'${ref}' is not found in any repository (local)`);
  assert.deepEqual(await checkTopology(a, [], none, false), [{
    location: "effects[0].target.ref",
    message:
      "UnresolvedLinkTarget: 'b' is not found in any repository (local) (svc.composition.lazy-binding is off)",
  }]);
  assert.deepEqual(await checkTopology(a, [], none, true), []);
  const cycle = await checkTopology(a, [b], () => Promise.resolve(null), false);
  assert.deepEqual(cycle.map((f) => f.location), ["effects[0]"]);
  assert.match(cycle[0].message, /^UnguardedCycle: the link 'toB' of 'a' to 'b'/);
  const guardedA = { ...a, effects: [link("toB", "b", true)] } as unknown as ModelSpec;
  assert.deepEqual(await checkTopology(guardedA, [b], () => Promise.resolve(null), false), []);
  // A cycle among other models (left by an older version) is not the new spec's to answer for.
  const unguardedB = { ...b, effects: [link("toA", "a", false)] } as unknown as ModelSpec;
  const other = { id: "c", schema: {}, effects: [link("toA", "a", false)] } as unknown as ModelSpec;
  assert.deepEqual(await checkTopology(other, [a, unguardedB], () => Promise.resolve(null), false), []);
  // One that goes through it is, every unguarded link on it named, a self-link included.
  const closing = { ...other, effects: [link("toA", "a", false)] } as unknown as ModelSpec;
  const aToC = { ...a, effects: [link("toC", "c", false)] } as unknown as ModelSpec;
  const through = await checkTopology(closing, [aToC, unguardedB], () => Promise.resolve(null), false);
  assert.deepEqual(through.map((f) => f.message.split(":")[1].trim().split(" of ")[0]), [
    "the link 'toA'",
    "the link 'toC'",
  ]);
  const self = { id: "s", schema: {}, effects: [link("me", "s", false)] } as unknown as ModelSpec;
  assert.equal((await checkTopology(self, [a, unguardedB], () => Promise.resolve(null), false)).length, 1);
});
