/**
 * The {@link SpecGenerator} over an {@link LlmProvider}: prompt previews,
 * spec generation and evolution drafts through the repair loop, each judged
 * by the engine's own validator, its initial state built as creation builds
 * it (and checked against rollback constraints), embedded tests (bounded by
 * `svc.llm.timeout-ms` and the caller's signal) and view lint, and an AI
 * evolution draft by the evolve path itself; the interaction log; the
 * concurrency limit of `svc.llm.max-concurrent-requests`.
 *
 * @module
 */
import { MODEL_SPEC_SCHEMA } from "../engine/model/model_spec_schema.ts";
import { badGateway, type Finding, ServiceError } from "../engine/errors.ts";
import { applyEvolution } from "../engine/evolve/apply.ts";
import { parseEvolution } from "../engine/evolve/evolution.ts";
import { SPEC_EVOLUTION_SCHEMA } from "../engine/evolve/schema.ts";
import { isObject, type Json, type JsonObject } from "../engine/json/value.ts";
import type { LlmProvider } from "../engine/llm.ts";
import type { VerificationReport } from "../engine/runtime/testing.ts";
import type { AuthoringEngine } from "../engine/service/authoring.ts";
import {
  checkPrompt,
  type EvolutionGenerationResult,
  evolutionInvalid,
  type EvolutionPreviewRequest,
  type GenerationContext,
  generationInvalid,
  type GenerationPreviewRequest,
  type GenerationResult,
  type InteractionRecord,
  type PromptPreview,
  type SpecGenerator,
} from "../engine/service/generation.ts";
import type { ModelSpec } from "../engine/model/types.ts";
import type { ValidationReport } from "../engine/model/compile.ts";
import type { LlmConfig } from "./config.ts";
import { InteractionLog } from "./interactions.ts";
import { issuesOf, type Judgement, type LoopDeps, repairLoop } from "./loop.ts";
import {
  evolutionPrompt,
  evolutionSystemPrompt,
  fixHint,
  generationPrompt,
  generationSystemPrompt,
  type Issue,
} from "./prompts.ts";
import { ToolSession, type WebPorts } from "./tools.ts";

/** A counting semaphore. */
class Limiter {
  #free: number;
  readonly #waiting: (() => void)[] = [];
  constructor(size: number) {
    this.#free = size;
  }
  /** Runs `task` once a slot is free; a caller that goes away while waiting leaves the queue. */
  async run<R>(task: () => Promise<R>, signal?: AbortSignal): Promise<R> {
    signal?.throwIfAborted();
    if (this.#free > 0) this.#free--;
    else {
      await new Promise<void>((resolve, reject) => {
        const turn = () => {
          signal?.removeEventListener("abort", leave);
          resolve();
        };
        const leave = () => {
          this.#waiting.splice(this.#waiting.indexOf(turn), 1);
          reject(signal!.reason);
        };
        this.#waiting.push(turn);
        signal?.addEventListener("abort", leave, { once: true });
      });
    }
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}

/** The findings a thrown evolution error carries. */
function findingsOf(err: ServiceError): Finding[] {
  const errors = err.body?.errors;
  return Array.isArray(errors) && errors.length
    ? (errors as unknown as Finding[])
    : [{ location: "$", message: err.message }];
}

/** A candidate the validator refused outright (nested too deep, too large) as findings for the repair prompt. */
function refused<T>(err: unknown, signal?: AbortSignal): Judgement<T> {
  // A generation stopped meanwhile (client gone, shutdown: a 503 ServiceError) is not the candidate's fault.
  signal?.throwIfAborted();
  if (!(err instanceof ServiceError)) throw err;
  return { errors: issuesOf(findingsOf(err), fixHint), soft: [] };
}

/**
 * Whether a draft proposes no change: every member (but `expectedVersion`,
 * which the service sets) absent or empty. Applied, it would answer 200 with
 * nothing done.
 */
function changesNothing(evolution: JsonObject): boolean {
  return Object.values(evolution).every((value) =>
    value === null ||
    (Array.isArray(value) ? value.length === 0 : isObject(value) && Object.keys(value).length === 0)
  );
}

/** The finding of a draft that changes nothing: repaired like any other, never applied. */
const NO_CHANGE = {
  location: "$",
  message: "the model proposed no change (an empty evolution)",
  hint: "answer the members that make the requested change",
};

/** Kinds of error a draft's own content causes (400, 413, 422): findings to repair, not failures of the call. */
const DRAFT_FAULTS: readonly string[] = ["bad_request", "validation_failed", "too_large"];

/**
 * Builds the initial state of `spec` as creating the model would (the
 * service's limits: expression guards, `svc.limits.max-state-bytes`), so a
 * spec `POST /models` would refuse is a finding, not a valid answer.
 */
async function initialState(
  authoring: AuthoringEngine,
  spec: JsonObject,
  signal?: AbortSignal,
): Promise<{ state: Json } | { issues: Issue[] }> {
  try {
    return { state: (await authoring.dryRun(spec, [], signal)).state };
  } catch (err) {
    signal?.throwIfAborted();
    if (!(err instanceof ServiceError)) throw err;
    return {
      issues: [{
        location: "$",
        message: `building the initial state fails, so creating the model would be refused: ${err.message}`,
        hint: "every derivation must terminate (no unbounded recursion) and stay small for the schema " +
          "defaults and defaultValues",
      }],
    };
  }
}

/** What keeps `spec` from being created: its initial state failing, or breaking a rollback constraint. */
async function initialStateIssues(
  authoring: AuthoringEngine,
  spec: JsonObject,
  signal?: AbortSignal,
): Promise<Issue[]> {
  const built = await initialState(authoring, spec, signal);
  if ("issues" in built) return built.issues;
  const { state } = built;
  const constraints = Array.isArray(spec.constraints) ? spec.constraints : [];
  const constants = isObject(spec.constants) ? spec.constants : {};
  const issues: Issue[] = [];
  for (const [i, c] of constraints.entries()) {
    if (!isObject(c) || c.policy !== "rollback" || typeof c.expr !== "string") continue;
    const paths = Array.isArray(c.path) ? c.path : [c.path];
    if (paths.some((p) => typeof p === "string" && p.includes("[*]"))) continue;
    try {
      const { result } = await authoring.evalExpression(c.expr, state, constants as Record<string, Json>);
      if (result === false) {
        issues.push({
          location: `constraints[${i}]`,
          message:
            `the initial state (schema defaults and defaultValues) breaks rollback constraint '${c.id}': ${
              c.message ?? ""
            }`,
          hint:
            "give the fields defaults that satisfy it, or make the constraint hold while fields are absent " +
            "($exists(...) or a null check)",
        });
      }
    } catch {
      // An expression error is the validator's business, reported there.
    }
  }
  return issues;
}

/** View lint: view warnings, and a missing view that was asked for. */
function viewLint(warnings: Finding[], spec: JsonObject, includeView: boolean): Issue[] {
  if (!includeView) return [];
  const issues = issuesOf(warnings.filter((w) => w.location.startsWith("viewDefinition")), fixHint);
  if (!isObject(spec.viewDefinition)) {
    issues.push({
      location: "viewDefinition",
      message: "a viewDefinition was asked for and is missing",
      hint: "add a viewDefinition with a defaultView and its views",
    });
  }
  return issues;
}

/** What the generator is built from. */
export interface GeneratorOptions {
  config: LlmConfig;
  provider: LlmProvider;
  web: WebPorts;
  now?: () => number;
}

/** The generator. */
export class LlmSpecGenerator implements SpecGenerator {
  readonly provider: string;
  readonly model: string;
  readonly #config: LlmConfig;
  readonly #llm: LlmProvider;
  readonly #web: WebPorts;
  readonly #now: () => number;
  readonly #log: InteractionLog;
  readonly #limiter: Limiter;

  constructor(options: GeneratorOptions) {
    this.#config = options.config;
    this.#llm = options.provider;
    this.#web = options.web;
    this.#now = options.now ?? Date.now;
    this.provider = options.provider.kind;
    this.model = options.provider.model;
    this.#log = new InteractionLog(options.config.captureContent);
    this.#limiter = new Limiter(options.config.maxConcurrentRequests);
  }

  previewGeneration(request: GenerationPreviewRequest): PromptPreview {
    return {
      prompt: generationPrompt(request.modelId, request.domainDescription, request.includeView ?? false),
    };
  }

  previewEvolution(request: EvolutionPreviewRequest): PromptPreview {
    return {
      prompt: evolutionPrompt(
        request.modelId,
        request.currentSpec,
        request.evolutionRequest,
        request.includeView ?? false,
      ),
    };
  }

  #deps(context: GenerationContext): { deps: LoopDeps; tools: ToolSession } {
    const tools = new ToolSession(this.#config, this.#web, context.authoring, context.progress);
    return {
      tools,
      deps: {
        provider: this.#llm,
        config: this.#config,
        tools,
        signal: context.signal,
        progress: context.progress,
        limit: (task) => this.#limiter.run(task, context.signal),
        record: (interaction) => this.#log.add(interaction),
        now: this.#now,
      },
    };
  }

  async generate(
    request: { modelId: string; prompt: string },
    context: GenerationContext,
  ): Promise<GenerationResult> {
    const { authoring } = context;
    // The view was asked for when the (possibly edited) prompt says so.
    const includeView = /Include a "viewDefinition"|viewDefinition/i.test(request.prompt) &&
      !/Do not include a "viewDefinition"/.test(request.prompt);
    const { deps } = this.#deps(context);
    const outcome = await repairLoop<GenerationResult>({
      kind: "spec",
      system: generationSystemPrompt(includeView),
      prompt: request.prompt,
      responseSchema: MODEL_SPEC_SCHEMA as unknown as JsonObject,
      responseName: "ModelSpec",
      judge: async (candidate, attempt): Promise<Judgement<GenerationResult>> => {
        // The request's modelId (checked up front) is the id, whatever the prompt's `Model ID:` line says:
        // taken rather than spending a repair on it.
        const spec = { ...candidate, id: request.modelId } as JsonObject;
        let report: ValidationReport;
        try {
          report = authoring.validateSpec(spec);
        } catch (err) {
          return refused(err, context.signal);
        }
        if (!report.valid) return { errors: issuesOf(report.errors, fixHint), soft: [] };
        const initial = await initialStateIssues(authoring, spec, context.signal);
        if (initial.length) return { errors: initial, errorTitle: "Initial state", soft: [] };
        context.progress?.({ type: "test_running", attempt });
        const checked = await this.#verify(authoring, spec, context.signal);
        if ("errors" in checked) return checked;
        const verification = checked.report;
        const failing = verification.cases.filter((c) => c.verifiable && !c.passed);
        if (failing.length) context.progress?.({ type: "test_failed", attempt, failCount: failing.length });
        const tests = failing.map((c) => ({
          location: `tests '${c.description}'`,
          message: c.reason ?? "failed",
          hint: "fix the derivation if the expectation is right, otherwise the expectation",
        }));
        return {
          errors: [],
          soft: [
            { title: "Failing tests", issues: tests },
            { title: "View lint", issues: viewLint(report.warnings, spec, includeView) },
          ],
          value: { valid: true, spec: spec as unknown as ModelSpec, verification },
        };
      },
    }, deps);
    if (outcome.ok) return outcome.value;
    throw generationInvalid(
      outcome.errors.map((e) => ({ location: e.location, message: e.message, severity: "error" })),
      outcome.raw,
    );
  }

  /**
   * The verification report of a candidate's tests, or the finding that they
   * could not be checked: an evaluation error, or more than `svc.llm.timeout-ms`
   * spent on them (the client leaving or shutdown stops it between cases too).
   */
  async #verify(
    authoring: AuthoringEngine,
    spec: JsonObject,
    signal?: AbortSignal,
  ): Promise<{ report: VerificationReport } | Judgement<GenerationResult>> {
    const ms = this.#config.timeoutMs;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), ms);
    try {
      const stop = signal ? AbortSignal.any([signal, deadline.signal]) : deadline.signal;
      return { report: await authoring.verifySpec(spec, stop) };
    } catch (err) {
      signal?.throwIfAborted();
      if (deadline.signal.aborted) {
        return {
          errors: [{
            location: "tests",
            message: `checking the tests took longer than ${ms} ms (svc.llm.timeout-ms)`,
            hint: "keep the tests few and the derivations they run cheap",
          }],
          errorTitle: "Tests",
          soft: [],
        };
      }
      if (!(err instanceof ServiceError)) throw err;
      return {
        errors: issuesOf(findingsOf(err), fixHint).map((i) => ({
          ...i,
          message: `running the tests: ${i.message}`,
        })),
        errorTitle: "Tests",
        soft: [],
      };
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The loop of an evolution draft against `currentSpec` (shape only without
   * one): the evolved spec must validate and build its initial state as a new
   * one would, and `apply` (the normal evolve path) must take it; what they
   * refuse with 400, 413 or 422 is a finding to repair.
   */
  #evolutionLoop(
    prompt: string,
    currentSpec: ModelSpec | undefined,
    context: GenerationContext,
    apply?: (draft: JsonObject) => Promise<void>,
  ) {
    const { authoring, signal } = context;
    const { deps } = this.#deps(context);
    return repairLoop<JsonObject>({
      kind: "evolution",
      system: evolutionSystemPrompt(),
      prompt,
      responseSchema: SPEC_EVOLUTION_SCHEMA as unknown as JsonObject,
      responseName: "SpecEvolution",
      judge: async (candidate): Promise<Judgement<JsonObject>> => {
        const { expectedVersion: _, ...evolution } = candidate;
        if (changesNothing(evolution)) return { errors: [NO_CHANGE], soft: [] };
        try {
          const parsed = parseEvolution(evolution);
          if (currentSpec) {
            const evolved = applyEvolution(currentSpec, parsed) as unknown as JsonObject;
            const report = authoring.validateSpec(evolved);
            if (!report.valid) {
              return {
                errors: issuesOf(report.errors, fixHint),
                errorTitle: "The evolved spec does not validate",
                soft: [],
              };
            }
            const built = await initialState(authoring, evolved, signal);
            if ("issues" in built) {
              return { errors: built.issues, errorTitle: "The evolved spec's initial state", soft: [] };
            }
          }
          await apply?.(evolution);
        } catch (err) {
          if (err instanceof ServiceError && !DRAFT_FAULTS.includes(err.kind)) throw err;
          return refused(err, signal);
        }
        return { errors: [], soft: [], value: evolution };
      },
    }, deps);
  }

  async generateEvolution(
    request: { modelId: string; prompt: string; currentSpec?: ModelSpec },
    context: GenerationContext,
  ): Promise<EvolutionGenerationResult> {
    const outcome = await this.#evolutionLoop(request.prompt, request.currentSpec, context);
    if (outcome.ok) return { valid: true, evolution: outcome.value };
    throw evolutionInvalid(outcome.errors.map((e) => `${e.location}: ${e.message}`).join("; "), outcome.raw);
  }

  async draftEvolution(
    request: {
      currentSpec: ModelSpec;
      description: string;
      includeView: boolean;
      apply?: (draft: JsonObject) => Promise<void>;
    },
    context: GenerationContext,
  ): Promise<JsonObject> {
    // The prompt embeds the current spec: held to the limit an edited prompt is held to (400, same message).
    const prompt = checkPrompt(evolutionPrompt(
      request.currentSpec.id,
      request.currentSpec,
      request.description,
      request.includeView,
    ));
    const outcome = await this.#evolutionLoop(prompt, request.currentSpec, context, request.apply);
    if (outcome.ok) return outcome.value;
    throw badGateway(
      `The LLM drafted no applicable evolution within its attempts: ${
        outcome.errors.slice(0, 5).map((e) => `${e.location}: ${e.message}`).join("; ")
      }`,
    );
  }

  interactions(): InteractionRecord[] {
    return this.#log.list();
  }
}
