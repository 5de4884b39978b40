/**
 * Shared fixtures of the engine's unit tests: compiling specs, building
 * runtimes and services on a hand-driven clock, and asserting typed errors.
 * Not part of the engine's public entry.
 *
 * @module
 */
import assert from "node:assert/strict";
import { MemoryModelStore } from "./service/memory.ts";
import type { ModelRefresh, StoreChange, StoreCoordination } from "./service/ports.ts";
import { DEFAULT_CONFIG, type EngineConfig } from "./config.ts";
import { type ErrorKind, ServiceError } from "./errors.ts";
import jsonata from "jsonata";
import { ExpressionCompiler } from "./expr/compiler.ts";
import type { Json } from "./json/value.ts";
import { type Platform, webPlatform } from "./ports.ts";
import type { CycleOutcome, MutationResult, PatchOperation } from "./runtime/results.ts";
import { ModelRuntime, type RuntimeEnv } from "./runtime/runtime.ts";
import { ModelService, type ServiceOptions } from "./service/service.ts";
import { type CompiledModel, compileSpec, type ValidationReport } from "./model/compile.ts";
import type { ModelSpec } from "./model/types.ts";

/** A clock that only moves when told to; starts at 2024-01-01T00:00:00Z. */
export class ManualClock {
  current = Date.parse("2024-01-01T00:00:00.000Z");
  now = (): number => this.current;
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    this.current += ms;
  }
}

/** The default configuration with some keys overridden. */
export function testConfig(overrides: Partial<EngineConfig> = {}): EngineConfig {
  return { ...DEFAULT_CONFIG, ...overrides };
}

/** A compiler with the configuration's guards. */
export function testCompiler(config: EngineConfig = testConfig()): ExpressionCompiler {
  return ExpressionCompiler.fromConfig(config);
}

/** Validates and compiles a spec, returning every finding. */
export function compile(
  spec: unknown,
  overrides: Partial<EngineConfig> = {},
): ValidationReport & { model?: CompiledModel } {
  const config = testConfig(overrides);
  return compileSpec(spec, { compiler: testCompiler(config), config, now: Date.now });
}

/** Compiles a spec that must be valid (fails the test with the findings otherwise). */
export function compileValid(spec: unknown, overrides: Partial<EngineConfig> = {}): CompiledModel {
  const report = compile(spec, overrides);
  assert.deepEqual(report.errors, [], "the spec should be valid");
  return report.model!;
}

/** A runtime of a valid spec on a manual clock. */
export async function runtimeOf(
  spec: unknown,
  overrides: Partial<EngineConfig> = {},
): Promise<{ runtime: ModelRuntime; clock: ManualClock; env: RuntimeEnv; model: CompiledModel }> {
  const clock = new ManualClock();
  const env: RuntimeEnv = { config: testConfig(overrides), clock };
  const model = compileValid(spec, overrides);
  const { runtime } = await ModelRuntime.create(model, env);
  return { runtime, clock, env, model };
}

/** Commits an evaluated cycle; `null` when nothing was written. */
async function commitEvaluated(
  runtime: ModelRuntime,
  evaluated: Promise<CycleOutcome | null>,
): Promise<MutationResult | null> {
  const outcome = await evaluated;
  if (outcome) runtime.commit(outcome);
  return outcome?.result ?? null;
}

/** Evaluates a flat mutation and commits it; `null` when nothing was written. */
export async function commitMutation(
  runtime: ModelRuntime,
  mutations: Record<string, Json>,
): Promise<MutationResult | null> {
  return await commitEvaluated(runtime, runtime.evaluateMutation(mutations));
}

/** Evaluates a JSON Patch and commits it; `null` when nothing was written. */
export async function commitPatch(
  runtime: ModelRuntime,
  ops: PatchOperation[],
): Promise<MutationResult | null> {
  return await commitEvaluated(runtime, runtime.evaluatePatch(ops));
}

/** A service on a manual clock (in-memory stores). */
export async function serviceOf(
  overrides: Partial<EngineConfig> = {},
  options: Omit<ServiceOptions, "config" | "platform"> = {},
): Promise<{ service: ModelService; clock: ManualClock }> {
  const clock = new ManualClock();
  const platform: Platform = { clock, hasher: webPlatform().hasher };
  const service = await ModelService.open({ ...options, config: testConfig(overrides), platform });
  return { service, clock };
}

/**
 * Asserts that `action` fails with a {@link ServiceError} of `kind` whose message
 * matches every pattern; returns the error for further checks.
 */
export async function rejectsWith(
  action: () => unknown,
  kind: ErrorKind,
  ...patterns: RegExp[]
): Promise<ServiceError> {
  let caught: unknown;
  try {
    await action();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ServiceError, `expected a ServiceError of kind ${kind}, got ${String(caught)}`);
  assert.equal(caught.kind, kind, `wrong kind for: ${caught.message}`);
  for (const pattern of patterns) assert.match(caught.message, pattern);
  return caught;
}

/** Locations of findings, for compact assertions. */
export function locations(findings: { location: string }[]): string[] {
  return findings.map((f) => f.location);
}

/** The finding at `location` (fails when absent). */
export function findingAt<T extends { location: string; message: string }>(
  findings: T[],
  location: string,
): T {
  const found = findings.find((f) => f.location === location);
  assert.ok(found, `no finding at ${location}; got ${JSON.stringify(findings)}`);
  return found;
}

/** Asserts that the guarded compiler answers each expression as plain JSONata does (as JSON). */
export async function assertLikeJsonata(
  compiler: ExpressionCompiler,
  sources: readonly string[],
  input: unknown,
): Promise<void> {
  for (const source of sources) {
    const expected = await jsonata(source).evaluate(input);
    assert.deepEqual(
      await compiler.compile(source).evaluate(input),
      JSON.parse(JSON.stringify(expected)),
      source,
    );
  }
}

/**
 * Runs `action` with the `Object.prototype.__proto__` accessor browsers have
 * (reading gives the prototype, assigning an object or null sets it), restoring
 * Deno's own afterwards. Deno's stub makes `o["__proto__"] = v` an own member,
 * so only under this accessor does a Deno test see what a page's engine does.
 */
export async function withBrowserProtoAccessor<T>(action: () => T | Promise<T>): Promise<T> {
  const deno = Object.getOwnPropertyDescriptor(Object.prototype, "__proto__")!;
  Object.defineProperty(Object.prototype, "__proto__", {
    configurable: true,
    enumerable: false,
    get(this: object) {
      return Object.getPrototypeOf(this);
    },
    set(this: object, value: unknown) {
      if (typeof value === "object") Object.setPrototypeOf(this, value);
    },
  });
  try {
    return await action();
  } finally {
    Object.defineProperty(Object.prototype, "__proto__", deno);
  }
}

/**
 * What `script` (a module that prints one JSON line) prints in a Deno process
 * under each time zone of `zones` (Deno reads `TZ` at start), in that order.
 */
export function jsonInTimeZones(script: string, zones: readonly string[]): Promise<unknown[]> {
  return Promise.all(zones.map(async (tz) => {
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--quiet", script],
      env: { TZ: tz },
      stdout: "piped",
      stderr: "inherit",
    }).output();
    assert.ok(run.success, tz);
    return JSON.parse(new TextDecoder().decode(run.stdout));
  }));
}

/**
 * A spec of `count` derivations, each doubling its own input (`out<i> = in<i> * 2`), the last one `last`:
 * a large model for the tests of creating one (3,000 derivations are about 340 KB).
 */
export function largeSpec(id: string, count: number, last = `in${count - 1} * 2`): ModelSpec {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    properties[`in${i}`] = { type: "number" };
    properties[`out${i}`] = { type: "number", readOnly: true };
  }
  return {
    id,
    schema: { type: "object", properties },
    derivations: Array.from({ length: count }, (_, i) => ({
      path: `$.out${i}`,
      expr: i === count - 1 ? last : `in${i} * 2`,
    })),
  } as ModelSpec;
}

/** A memory store shared with another process, whose changes the test plays: `next` is what a refresh finds. */
export class SharedStore extends MemoryModelStore {
  next: ModelRefresh = { kind: "current" };
  #listener: (change: StoreChange) => void = () => {};
  readonly coordination: StoreCoordination = {
    refresh: () => Promise.resolve(structuredClone(this.next)),
    watch: (listener) => {
      this.#listener = listener;
      return Promise.resolve(() => {});
    },
    claim: (job) => Promise.resolve(job),
  };

  /** The other process changed model `modelId` as `next` says. */
  async changed(modelId: string, next: ModelRefresh): Promise<void> {
    this.next = next;
    this.#listener({ type: "model", modelId });
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
