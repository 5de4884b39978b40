import assert from "node:assert/strict";
import { compile, runtimeOf, testConfig } from "../../_test_utils.ts";
import type { Json } from "../../json/value.ts";
import { runTests, verify } from "../../runtime/testing.ts";
import { parsePath, WILDCARD } from "../../json/path.ts";
import { evaluateView, viewStateOf } from "../../view/evaluate.ts";
import { groupOf } from "../../model/view_definition/groups.ts";
import type { EvaluatedComponent } from "../../view/evaluate.ts";
import { describeLibrary } from "../../model/library_description.ts";
import { EXAMPLES } from "./mod.ts";

const CONFORMANCE_IDS = [
  "benefits-eligibility",
  "car-loan-calculator",
  "customer-satisfaction-survey",
  "daily-wellness",
  "insurance-quote",
  "order-items-price-total",
  "savings-growth",
  "support-ticket-triage",
  "tic-tac-toe",
  "world-clock",
];

interface ViewLike {
  id: string;
  components?: ComponentLike[];
}
interface ComponentLike {
  type: string;
  components?: ComponentLike[];
}

function viewsOf(spec: { viewDefinition?: unknown }): ViewLike[] {
  return ((spec.viewDefinition ?? {}) as { views?: ViewLike[] }).views ?? [];
}

function typesIn(components: ComponentLike[] = []): string[] {
  return components.flatMap((c) => [c.type, ...typesIn(c.components)]);
}

/** `id: error` of every evaluated component (nested and section items included) that carries one. */
function componentErrors(components: EvaluatedComponent[]): string[] {
  return components.flatMap((c) => [
    ...(c.error === undefined ? [] : [`${c.id}: ${c.error}`]),
    ...componentErrors((c.components ?? []) as EvaluatedComponent[]),
  ]);
}

Deno.test("there are at least five examples with distinct names, none of them a conformance example", () => {
  assert.ok(EXAMPLES.length >= 5);
  const names = EXAMPLES.map((e) => e.name);
  assert.equal(new Set(names).size, names.length);
  for (const name of names) assert.ok(!CONFORMANCE_IDS.includes(name), `${name} is a conformance example`);
  for (const example of EXAMPLES) {
    assert.equal(example.name, example.spec.id);
    assert.ok(
      example.title.length > 0 && example.description.length > 40,
      `${example.name} needs a title and description`,
    );
    assert.equal(example.title, example.spec._name);
  }
});

for (const { name, spec } of EXAMPLES) {
  Deno.test(`example ${name} compiles without errors or warnings`, () => {
    const report = compile(spec);
    assert.deepEqual(report.errors, []);
    assert.deepEqual(report.warnings, []);
  });

  Deno.test(`example ${name} passes its embedded tests`, async () => {
    const model = compile(spec).model!;
    const env = { config: testConfig(), clock: { now: () => 0 } };
    const run = await runTests(model, env);
    const failures = run.cases.filter((c) => !c.passed).map((c) => ({
      c: c.description,
      e: c.error,
      f: c.failures,
    }));
    assert.deepEqual(failures, []);
    assert.ok(run.total >= 4, "each example carries at least four tests");
    assert.equal((await verify(model, env)).state, "green", "the verification report is green");
  });

  Deno.test(`example ${name} has every section an example should show`, () => {
    assert.ok((spec.derivations ?? []).length > 0);
    assert.ok((spec.metaDerivations ?? []).length > 0);
    assert.ok((spec.defaultValues ?? []).length > 0);
    const policies = new Set((spec.constraints ?? []).map((c) => c.policy));
    assert.deepEqual([...policies].sort(), ["flag", "rollback"]);
    const kinds = new Set(viewsOf(spec).flatMap((v) => typesIn(v.components)).map((t) => groupOf(t)?.kind));
    assert.ok(!kinds.has(undefined), "every component type is a known one");
    assert.ok(kinds.size >= 6, `the views use several component groups (${[...kinds].join(", ")})`);
  });

  Deno.test(`example ${name}: every view evaluates without errors, empty and after each test's data`, async () => {
    const states: Record<string, Json>[] = [{}, ...(spec.tests ?? []).map((t) => t.given)];
    for (const given of states) {
      const { runtime, model } = await runtimeOf(spec);
      const outcome = await runtime.evaluateMutation(given);
      if (outcome) runtime.commit(outcome);
      for (const view of viewsOf(spec)) {
        const evaluated = await evaluateView(model, await viewStateOf(runtime), view.id);
        assert.deepEqual(
          componentErrors(evaluated.components),
          [],
          `view ${view.id} after ${JSON.stringify(given)}`,
        );
      }
    }
  });
}

Deno.test("together the examples show per-element derivations and constraints, lazy evaluation, caller effects", () => {
  const derivations = EXAMPLES.flatMap((e) => e.spec.derivations ?? []);
  assert.ok(derivations.some((d) => {
    const parsed = parsePath(d.path);
    return parsed.ok && parsed.path.includes(WILDCARD);
  }));
  assert.ok(derivations.some((d) => d.evaluation === "lazy"));
  assert.ok(EXAMPLES.flatMap((e) => e.spec.effects ?? []).some((effect) => effect.executor === "caller"));
  assert.ok(EXAMPLES.flatMap((e) => e.spec.constraints ?? []).some((c) => String(c.path).includes("[*]")));
});

Deno.test("four examples share their computation through a library, one of them in two layers", async () => {
  const withLibrary = EXAMPLES.filter((e) => e.spec.library !== undefined);
  assert.ok(withLibrary.length >= 4, withLibrary.map((e) => e.name).join(", "));
  assert.ok(withLibrary.some((e) => (e.spec.library as { layers?: unknown[] }).layers?.length));
  for (const { name, spec } of withLibrary) {
    const { model } = await runtimeOf(spec);
    const functions = describeLibrary(model).exports.filter((e) => e.kind === "function");
    assert.ok(functions.length >= 2, `${name} exports functions`);
    const expressions = JSON.stringify([spec.derivations, spec.viewDefinition]);
    for (const { name: fn } of functions) {
      assert.ok(
        expressions.includes(`$${fn}(`) || JSON.stringify(spec.library).includes(`$${fn}(`),
        `${name}: $${fn} is used`,
      );
    }
  }
});
