/**
 * The pure authoring tools (`validate_spec`, `eval_expression`, `test_spec`,
 * `dry_run`): they compile and run specs in throwaway runtimes and never touch
 * a registry, so they run locally even when the other operations go to a
 * remote server (SPEC.md "Run modes"). A service shares its own compiler
 * with them ({@link ModelService.authoring}).
 *
 * @module
 */
import { checkMutationValues, checkSpecSize, checkStateBytes, checkValue } from "./limits.ts";
import { DEFAULT_CONFIG, type EngineConfig } from "../config.ts";
import { badRequest, ServiceError, specInvalid } from "../errors.ts";
import { ExpressionCompiler, ExpressionError } from "../expr/compiler.ts";
import { withRegexEngine } from "../expr/re2.ts";
import { isObject, type Json } from "../json/value.ts";
import type { Clock } from "../ports.ts";
import type { MutationResult } from "../runtime/results.ts";
import { ModelRuntime, type RuntimeEnv } from "../runtime/runtime.ts";
import { runTests, type TestRunResult, type VerificationReport, verify } from "../runtime/testing.ts";
import { type CompiledModel, compileSpec, type ValidationReport } from "../model/compile.ts";
import type { TestCase } from "../model/types.ts";

/** JSON type names `eval_expression` reports, `undefined` meaning "no result" (a missing value). */
export type ValueType = "null" | "boolean" | "number" | "string" | "array" | "object" | "undefined";

/** What `eval_expression` returns. */
export interface EvalResult {
  /** The value; `null` also when the expression yields nothing (see `type`). */
  result: Json;
  /** The JSON type of the value, or `undefined` when JSONata produced no value. */
  type: ValueType;
}

/** One applied step of a dry run. */
export type DryRunStep = Omit<MutationResult, "traces">;

/** What `dry_run` returns. */
export interface DryRunResult {
  /** The merged state after every step (lazy derivations evaluated). */
  state: Json;
  /** Each mutation's result, in order (without traces). */
  steps: DryRunStep[];
}

/** The engine functions the authoring tools need; no registry involved. */
export interface AuthoringEngine {
  /**
   * Synchronous, so RE2 must be loaded for a spec with a regex: wrap the call in `withRegexEngine` where
   * it may not be (the browser bundles load it on demand; see expr/re2.ts).
   */
  validateSpec(spec: unknown): ValidationReport;
  evalExpression(expr: string, input?: Json, constants?: Record<string, Json>): Promise<EvalResult>;
  /**
   * Evaluates `expr` as an expression of `spec`'s model does: over `input`
   * with `$const` and the library's exports bound (a view handler's
   * `mutations`, evaluated where the view is). The spec is compiled once per
   * spec object.
   */
  evalInModel(spec: object, expr: string, input: Json): Promise<EvalResult>;
  /** Runs the spec's tests (or `tests`); an abort of `signal` stops it between cases. */
  testSpec(spec: unknown, tests?: unknown[], signal?: AbortSignal): Promise<TestRunResult>;
  /**
   * Applies `mutations` in a throwaway runtime; an abort of `signal` stops it between steps. The initial state
   * is checked as creation checks it (`svc.limits.max-state-bytes`, 413).
   */
  dryRun(spec: unknown, mutations?: Record<string, Json>[], signal?: AbortSignal): Promise<DryRunResult>;
  /**
   * The verification report of a candidate spec (which embedded tests are checkable, which pass); an abort of
   * `signal` stops it between cases.
   */
  verifySpec(spec: unknown, signal?: AbortSignal): Promise<VerificationReport>;
}

/** Options of {@link localAuthoring}. */
export interface AuthoringOptions {
  config?: EngineConfig;
  clock?: Clock;
  /** The expression compiler to share (a service's); a new one by default. */
  compiler?: ExpressionCompiler;
}

/** The JSON type of an evaluation result. */
function typeOf(value: Json | undefined): ValueType {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value as ValueType;
}

/** The step of an empty mutation map, which writes nothing (keeps `steps` aligned with `mutations`). */
const NOTHING_WRITTEN: DryRunStep = Object.freeze({
  success: true,
  mutatedPaths: [],
  derivedUpdated: [],
  metaUpdated: [],
  flaggedConstraints: [],
  dispatchedEffects: [],
});

/** An evaluation's answer, or the exact JSONata error (with its code and position when it has them) as a 400. */
async function evaluation(evaluate: () => Promise<Json | undefined>): Promise<EvalResult> {
  try {
    const value = await evaluate();
    return { result: value === undefined ? null : value, type: typeOf(value) };
  } catch (err) {
    if (!(err instanceof ExpressionError)) throw err;
    throw new ServiceError("bad_request", err.message, {
      error: err.message,
      ...(err.code ? { code: err.code } : {}),
      ...(typeof err.position === "number" ? { position: err.position } : {}),
    });
  }
}

/** Authoring tools over the pure engine, with their own expression cache. */
export function localAuthoring(options: AuthoringOptions = {}): AuthoringEngine {
  const config = options.config ?? { ...DEFAULT_CONFIG };
  const clock = options.clock ?? { now: () => Date.now() };
  const env: RuntimeEnv = { config, clock };
  const compiler = options.compiler ?? ExpressionCompiler.fromConfig(config);
  const compile = (spec: unknown) => compileSpec(spec, { compiler, config, now: clock.now });
  /** Models compiled for {@link AuthoringEngine.evalInModel}, by spec object. */
  const models = new WeakMap<object, Promise<CompiledModel>>();
  const compileOrThrow = async (spec: unknown): Promise<CompiledModel> => {
    checkSpecSize(config, spec);
    const report = await withRegexEngine(() => compile(spec));
    if (!report.model) throw specInvalid(report.errors, report.warnings);
    return report.model;
  };

  return {
    validateSpec(spec) {
      checkSpecSize(config, spec);
      const { valid, errors, warnings } = compile(spec);
      return { valid, errors, warnings };
    },

    async evalExpression(expr, input = null, constants = {}) {
      if (!isObject(constants)) throw badRequest("constants must be an object of name to value");
      checkValue(config, input, "The input");
      checkValue(config, constants, "The constants");
      return await evaluation(async () =>
        await (await withRegexEngine(() => compiler.compile(expr))).evaluate(input, { const: constants })
      );
    },

    async evalInModel(spec, expr, input) {
      let compiling = models.get(spec);
      if (!compiling) {
        compiling = compileOrThrow(spec);
        models.set(spec, compiling);
        compiling.catch(() => models.delete(spec));
      }
      const model = await compiling;
      await model.bindings.prepare();
      return await evaluation(async () =>
        await (await withRegexEngine(() => model.compiler.compile(expr))).evaluate(input, model.bindings.base)
      );
    },

    async testSpec(spec, tests, signal) {
      // Ad-hoc cases replace the embedded ones and are validated like them (same finding locations).
      const candidate = tests === undefined || !isObject(spec) ? spec : { ...spec, tests };
      const model = await compileOrThrow(candidate);
      return await runTests(model, env, model.tests as TestCase[], signal);
    },

    async verifySpec(spec, signal) {
      return await verify(await compileOrThrow(spec), env, signal);
    },

    async dryRun(spec, mutations = [], signal) {
      const model = await compileOrThrow(spec);
      const { runtime } = await ModelRuntime.create(model, env);
      // The initial state is held to the limit creation holds it to (413).
      checkStateBytes(config, runtime.stateBytes, model.id);
      const steps: DryRunStep[] = [];
      for (const [index, mutation] of mutations.entries()) {
        signal?.throwIfAborted();
        try {
          checkMutationValues(config, mutation);
          const outcome = await runtime.evaluateMutation(mutation);
          if (!outcome) {
            steps.push(NOTHING_WRITTEN);
            continue;
          }
          runtime.commit(outcome);
          const { traces: _traces, ...step } = outcome.result;
          steps.push(step);
        } catch (err) {
          if (!(err instanceof ServiceError)) throw err;
          // Which step failed and the state it ran against, on top of the service's own body.
          throw new ServiceError(err.kind, `mutations[${index}]: ${err.message}`, {
            ...(err.body ?? { error: err.message }),
            step: index,
            state: await runtime.readState(),
          });
        }
      }
      return { state: await runtime.readState(), steps };
    },
  };
}
