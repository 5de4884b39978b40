/**
 * Fixtures shared by the view tests: compiling a spec around a list of
 * components, and a runtime holding real state for delta tests.
 *
 * @module
 */
import { DEFAULT_CONFIG } from "../config.ts";
import { specInvalid } from "../errors.ts";
import { ExpressionCompiler } from "../expr/compiler.ts";
import type { Json, JsonObject } from "../json/value.ts";
import { ModelRuntime } from "../runtime/runtime.ts";
import { type CompiledModel, compileSpec, type ValidationReport } from "../model/compile.ts";

/** A compiler with the default guards. */
export function testCompiler(): ExpressionCompiler {
  return ExpressionCompiler.fromConfig(DEFAULT_CONFIG);
}

/** Validates and compiles a spec with the default configuration. */
export function compileForTest(spec: unknown): ValidationReport & { model?: CompiledModel } {
  return compileSpec(spec, { compiler: testCompiler(), config: DEFAULT_CONFIG, now: () => 0 });
}

/** A spec `m` whose default view `main` holds `components`; `rest` adds spec members and views. */
export function specWithView(
  components: Json[],
  rest: { views?: JsonObject[]; spec?: JsonObject } = {},
): JsonObject {
  return {
    id: "m",
    schema: { type: "object" },
    ...rest.spec,
    viewDefinition: {
      defaultView: "main",
      views: [{ id: "main", label: "Main", components }, ...(rest.views ?? [])],
    },
  };
}

/** Compiles a spec that must be valid. */
export function modelOf(spec: unknown): CompiledModel {
  const report = compileForTest(spec);
  if (!report.model) throw specInvalid(report.errors);
  return report.model;
}

/** A runtime of a valid spec, created like the service creates models. */
export async function runtimeOf(spec: unknown): Promise<ModelRuntime> {
  const { runtime } = await ModelRuntime.create(modelOf(spec), {
    config: DEFAULT_CONFIG,
    clock: { now: () => 0 },
  });
  return runtime;
}
