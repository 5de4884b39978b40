/**
 * Validation and compilation of a ModelSpec in one pass: every finding is
 * collected (`{location, message}`), and a valid spec yields a
 * {@link CompiledModel} (schema, compiled expressions, dependency graph).
 *
 * @module
 */
import type { EngineConfig } from "../config.ts";
import type { Finding } from "../errors.ts";
import type { CompiledExpression, ExpressionCompiler } from "../expr/compiler.ts";
import { ExpressionError } from "../expr/compiler.ts";
import { extractReads, type Read } from "../expr/dependencies.ts";
import { buildGraph, type DependencyGraph, elementPatternOf, type ExprNode } from "../graph/graph.ts";
import { isObject, type Json, type JsonObject } from "../json/value.ts";
import { validateViewDefinition } from "./view_definition/validate.ts";
import { formatPath, hasWildcard, isPrefixOf, parsePath, type Segment, WILDCARD } from "../json/path.ts";
import { checkSchemaReferences, SchemaIndex } from "./schema_index.ts";
import {
  type Constraint,
  DEFAULT_VERSION,
  type Effect,
  META_PROPERTIES,
  metaKeyName,
  type ModelSpec,
  type TestCase,
} from "./types.ts";

/** The outcome of validation: all findings in one pass. */
export interface ValidationReport {
  valid: boolean;
  errors: Finding[];
  warnings: Finding[];
}

/** A graph node with what the runtime needs to evaluate it. */
export interface CompiledNode extends ExprNode {
  compiled: CompiledExpression;
  /** DERIVED: evaluated on read instead of in the cycle. */
  lazy: boolean;
  /** META: snake_case property name used in meta keys (`read_only`). */
  metaKey?: string;
  /** CONSTRAINT: its definition. */
  constraint?: Constraint;
  /** EFFECT: its definition and compiled payload members. */
  effect?: CompiledEffect;
}

/** An effect with its expressions compiled. */
export interface CompiledEffect {
  definition: Effect;
  executor: string;
  /** `payload` compiled: a single expression, or one per member. */
  payload: CompiledExpression | Record<string, CompiledExpression> | null;
}

/** A compiled default rule. */
export interface CompiledDefault {
  path: Segment[];
  compiled: CompiledExpression;
}

/** Everything the runtime needs from a valid spec; immutable and shareable. */
export interface CompiledModel {
  spec: ModelSpec;
  id: string;
  version: string;
  schema: SchemaIndex;
  constants: Record<string, Json>;
  graph: DependencyGraph<CompiledNode>;
  derivedTargets: { target: Segment[]; node: CompiledNode }[];
  defaults: CompiledDefault[];
  tests: TestCase[];
  /** Compiles an ad-hoc expression through the shared cache. */
  compiler: ExpressionCompiler;
}

/** What compilation needs from its host. */
export interface CompileEnv {
  compiler: ExpressionCompiler;
  config: EngineConfig;
  now: () => number;
}

const ID_SEGMENT = "[A-Za-z][A-Za-z0-9_-]*";
const COORDINATE = new RegExp(`^(${ID_SEGMENT}/)?${ID_SEGMENT}$`);
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
const KNOWN_KEYS = new Set([
  "id",
  "version",
  "template",
  "lineage",
  "schema",
  "constants",
  "defaultValues",
  "derivations",
  "metaDerivations",
  "constraints",
  "effects",
  "tests",
  "viewDefinition",
  "actions",
]);
/** Built-in effect executor kinds. */
export const BUILTIN_EXECUTORS = ["caller", "server", "llm", "timer"];
/** Effect members holding JSONata whose reads make the effect's node dirty. */
const EFFECT_TRIGGER_MEMBERS = ["trigger", "dedupeKey", "requests", "prompt", "at", "afterMs"];
const DYNAMIC_READS = /\$(lookup|eval)\s*\(/;

/** Validates a spec; every finding is reported. */
export function validateSpec(spec: unknown, env: CompileEnv): ValidationReport {
  const { errors, warnings } = compileSpec(spec, env);
  return { valid: errors.length === 0, errors, warnings };
}

/** Checks that a value is a valid model id coordinate. */
export function isCoordinate(id: unknown): id is string {
  return typeof id === "string" && COORDINATE.test(id);
}

/** Validates and compiles a spec. `model` is present only when there are no errors. */
export function compileSpec(
  input: unknown,
  env: CompileEnv,
): ValidationReport & { model?: CompiledModel } {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const error = (location: string, message: string) => errors.push({ location, message });
  if (!isObject(input)) {
    error("spec", "a ModelSpec must be a JSON object");
    return { valid: false, errors, warnings };
  }
  const spec = input as unknown as ModelSpec;

  for (const key of Object.keys(spec)) {
    if (!KNOWN_KEYS.has(key) && !key.startsWith("_")) error(key, `unknown field '${key}'`);
  }
  if (spec.id === undefined) error("id", "id is required");
  else if (!isCoordinate(spec.id)) {
    error(
      "id",
      `'${spec.id}' is not a valid id: use [namespace/]name, each segment starting with a letter followed by letters, digits, '-' or '_'`,
    );
  }
  let version = DEFAULT_VERSION;
  if (spec.version !== undefined && spec.version !== null) {
    if (typeof spec.version !== "string") error("version", "version must be a string");
    else if (spec.version.trim() !== "") {
      if (!SEMVER.test(spec.version)) {
        error("version", `'${spec.version}' is not a semantic version (MAJOR.MINOR.PATCH)`);
      } else version = spec.version;
    }
  }
  if (spec.actions !== undefined && !(Array.isArray(spec.actions) && spec.actions.length === 0)) {
    error("actions", "the 'actions' section was removed: declare effects instead");
  }
  if (spec.template !== undefined && spec.template !== null) {
    error("template", "branching from a template is not supported by this service yet");
  }
  if (spec.lineage !== undefined && !Array.isArray(spec.lineage)) {
    error("lineage", "lineage must be an array");
  }

  // schema
  let schema: SchemaIndex | undefined;
  if (!isObject(spec.schema)) {
    error("schema", "schema is required and must be a JSON Schema object");
  } else {
    const refs = checkSchemaReferences(spec.schema);
    errors.push(...refs.errors);
    warnings.push(...refs.warnings);
    const declared = spec.schema.$schema;
    if (typeof declared === "string" && !declared.includes("2020-12")) {
      warnings.push({
        location: "schema.$schema",
        message: `'${declared}' is ignored: schemas are interpreted as JSON Schema 2020-12`,
      });
    }
    if (refs.errors.length === 0) {
      try {
        schema = new SchemaIndex(spec.schema, {
          maxInput: env.config.regexMaxInput,
          timeoutMs: env.config.regexTimeoutMs,
          now: env.now,
        });
      } catch (err) {
        error("schema", `invalid JSON Schema: ${(err as Error).message}`);
      }
    }
  }

  const constants = spec.constants ?? {};
  if (!isObject(constants)) error("constants", "constants must be an object of name to value");

  const section = <T>(name: string): T[] => {
    const value = spec[name];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      error(name, `${name} must be an array`);
      return [];
    }
    return value as T[];
  };

  const compile = (source: unknown, location: string): CompiledExpression | null => {
    if (typeof source !== "string" || source.trim() === "") {
      error(location, "a JSONata expression (non-empty string) is required");
      return null;
    }
    if (DYNAMIC_READS.test(source)) {
      warnings.push({
        location,
        message: "$lookup(/$eval( read data the dependency graph cannot see: the value can go stale",
      });
    }
    try {
      return env.compiler.compile(source);
    } catch (err) {
      const e = err as ExpressionError;
      error(location, `JSONata compile error: ${e.message}`);
      return null;
    }
  };

  const address = (value: unknown, location: string, allowWildcard = true): Segment[] | null => {
    const parsed = parsePath(value);
    if (!parsed.ok) {
      error(location, parsed.message);
      return null;
    }
    if (!allowWildcard && hasWildcard(parsed.path)) {
      error(location, `'${value}' must be a concrete address without [*]`);
      return null;
    }
    return parsed.path;
  };

  // Collect node definitions before extracting reads: the array oracle needs all targets.
  interface Pending {
    node: Omit<CompiledNode, "reads" | "level">;
    sources: { compiled: CompiledExpression }[];
  }
  const pending: Pending[] = [];
  const derivedTargets: { target: Segment[]; key: string }[] = [];

  section<Record<string, unknown>>("derivations").forEach((d, i) => {
    const loc = `derivations[${i}]`;
    if (!isObject(d)) return error(loc, "a derivation must be an object");
    const target = address(d.path, `${loc}.path`);
    const compiled = compile(d.expr, `${loc}.expr`);
    if (d.evaluation !== undefined && d.evaluation !== "eager" && d.evaluation !== "lazy") {
      error(`${loc}.evaluation`, "evaluation must be 'eager' or 'lazy'");
    }
    if (target && target.length === 0) error(`${loc}.path`, "the document root '$' cannot be derived");
    if (!target || !compiled || target.length === 0) return;
    const key = formatPath(target);
    const clash = derivedTargets.find((t) => isPrefixOf(t.target, target) || isPrefixOf(target, t.target));
    if (clash) {
      error(
        `${loc}.path`,
        clash.key === key
          ? `two derivations target the same path ${key}`
          : `derivation target ${key} overlaps the derivation target ${clash.key}`,
      );
      return;
    }
    if (target[target.length - 1] === WILDCARD) {
      error(`${loc}.path`, `'${key}' must name a field of each element, e.g. '${key}.total'`);
      return;
    }
    derivedTargets.push({ target, key });
    pending.push({
      node: {
        key,
        kind: "DERIVED",
        label: typeof d.description === "string" ? d.description : key,
        expression: d.expr as string,
        target,
        elementPattern: elementPatternOf(target),
        index: i,
        compiled,
        lazy: d.evaluation === "lazy",
      },
      sources: [{ compiled }],
    });
  });

  const metaKeys = new Set<string>();
  section<Record<string, unknown>>("metaDerivations").forEach((m, i) => {
    const loc = `metaDerivations[${i}]`;
    if (!isObject(m)) return error(loc, "a meta derivation must be an object");
    const target = address(m.path, `${loc}.path`);
    const compiled = compile(m.expr, `${loc}.expr`);
    if (!META_PROPERTIES.includes(m.property as never)) {
      error(`${loc}.property`, `property must be one of ${META_PROPERTIES.join(", ")}`);
      return;
    }
    if (!target || !compiled) return;
    const metaKey = metaKeyName(m.property as string);
    const key = `${formatPath(target)}#${metaKey}`;
    if (metaKeys.has(key)) return error(loc, `two meta derivations compute ${key}`);
    metaKeys.add(key);
    pending.push({
      node: {
        key,
        kind: "META",
        label: typeof m.description === "string" ? m.description : key,
        expression: m.expr as string,
        target,
        elementPattern: elementPatternOf(target),
        index: i,
        compiled,
        lazy: false,
        metaKey,
      },
      sources: [{ compiled }],
    });
  });

  const constraintIds = new Set<string>();
  section<Record<string, unknown>>("constraints").forEach((c, i) => {
    const loc = `constraints[${i}]`;
    if (!isObject(c)) return error(loc, "a constraint must be an object");
    if (typeof c.id !== "string" || c.id.trim() === "") error(`${loc}.id`, "id is required");
    else if (constraintIds.has(c.id)) error(`${loc}.id`, `duplicate constraint id '${c.id}'`);
    else constraintIds.add(c.id);
    if (typeof c.message !== "string") error(`${loc}.message`, "message is required");
    if (c.policy !== "rollback" && c.policy !== "flag") {
      error(`${loc}.policy`, "policy must be 'rollback' or 'flag'");
    }
    const paths = c.path === undefined || c.path === null ? [] : Array.isArray(c.path) ? c.path : [c.path];
    const parsed = paths.map((p, j) =>
      address(p, Array.isArray(c.path) ? `${loc}.path[${j}]` : `${loc}.path`)
    );
    const compiled = compile(c.expr, `${loc}.expr`);
    if (!compiled || typeof c.id !== "string" || parsed.includes(null)) return;
    const wildcard = parsed.find((p) => p && hasWildcard(p));
    if (wildcard && parsed.length > 1) {
      error(`${loc}.path`, "a per-element constraint ([*]) takes exactly one path");
      return;
    }
    pending.push({
      node: {
        key: `$constraint:${c.id}`,
        kind: "CONSTRAINT",
        label: typeof c.message === "string" ? c.message : c.id,
        expression: c.expr as string,
        target: null,
        elementPattern: wildcard ? elementPatternOf(wildcard) : null,
        index: i,
        compiled,
        lazy: false,
        constraint: c as unknown as Constraint,
      },
      sources: [{ compiled }],
    });
  });

  const effectIds = new Set<string>();
  const kinds = env.config.effectKindsEnabled;
  section<Record<string, unknown>>("effects").forEach((e, i) => {
    const loc = `effects[${i}]`;
    if (!isObject(e)) return error(loc, "an effect must be an object");
    if (typeof e.id !== "string" || e.id.trim() === "") error(`${loc}.id`, "id is required");
    else if (effectIds.has(e.id)) error(`${loc}.id`, `duplicate effect id '${e.id}'`);
    else effectIds.add(e.id);
    const executor = e.executor === undefined ? "server" : e.executor;
    if (typeof executor !== "string" || executor.trim() === "") {
      error(`${loc}.executor`, "executor must be a non-empty string");
    } else if (kinds && !kinds.includes(executor)) {
      error(
        `${loc}.executor`,
        `executor kind '${executor}' is not enabled (svc.effects.kinds.enabled: ${kinds.join(", ")})`,
      );
    }
    if (e.statusPath !== undefined) address(e.statusPath, `${loc}.statusPath`, false);
    const sources: { compiled: CompiledExpression }[] = [];
    let trigger: CompiledExpression | null = null;
    for (const member of EFFECT_TRIGGER_MEMBERS) {
      if (member !== "trigger" && e[member] === undefined) continue;
      const compiled = compile(e[member], `${loc}.${member}`);
      if (compiled) sources.push({ compiled });
      if (member === "trigger") trigger = compiled;
    }
    let payload: CompiledEffect["payload"] = null;
    if (typeof e.payload === "string") payload = compile(e.payload, `${loc}.payload`);
    else if (isObject(e.payload)) {
      const members: Record<string, CompiledExpression> = {};
      for (const [k, v] of Object.entries(e.payload)) {
        const compiled = compile(v, `${loc}.payload.${k}`);
        if (compiled) members[k] = compiled;
      }
      payload = members;
    } else if (e.payload !== undefined && e.payload !== null) {
      error(`${loc}.payload`, "payload must be a JSONata string or an object of JSONata strings");
    }
    if (e.emit !== undefined && typeof e.emit !== "string") error(`${loc}.emit`, "emit must be a string");
    if (!trigger || typeof e.id !== "string" || typeof executor !== "string") return;
    pending.push({
      node: {
        key: `$effect:${e.id}`,
        kind: "EFFECT",
        label: typeof e.description === "string" ? e.description : e.id,
        expression: e.trigger as string,
        target: null,
        elementPattern: null,
        index: i,
        compiled: trigger,
        lazy: false,
        effect: { definition: e as unknown as Effect, executor, payload },
      },
      sources,
    });
  });

  const defaults: CompiledDefault[] = [];
  section<Record<string, unknown>>("defaultValues").forEach((d, i) => {
    const loc = `defaultValues[${i}]`;
    if (!isObject(d)) return error(loc, "a default rule must be an object");
    const path = address(d.path, `${loc}.path`);
    const compiled = compile(d.expr, `${loc}.expr`);
    if (path && compiled) defaults.push({ path, compiled });
  });

  const tests = section<TestCase>("tests");
  tests.forEach((t, i) => {
    const loc = `tests[${i}]`;
    if (!isObject(t)) return error(loc, "a test case must be an object");
    for (const member of ["given", "expect"] as const) {
      const value = (t as unknown as JsonObject)[member];
      if (!isObject(value)) {
        error(`${loc}.${member}`, `${member} must be an object of address to value`);
        continue;
      }
      for (const key of Object.keys(value)) address(key, `${loc}.${member}['${key}']`, false);
    }
  });

  const viewFindings = validateViewDefinition(spec.viewDefinition, env.compiler);
  errors.push(...viewFindings.errors);
  warnings.push(...viewFindings.warnings);

  if (!schema || errors.length) return { valid: false, errors, warnings };

  // Reads and graph
  const arrayPrefixes = new Set<string>();
  for (const { target } of derivedTargets) {
    target.forEach((seg, i) => {
      if (seg === WILDCARD) arrayPrefixes.add(formatPath(target.slice(0, i)));
    });
  }
  const isArray = (pattern: readonly Segment[]) =>
    arrayPrefixes.has(formatPath(pattern)) || schema!.isArrayAt(pattern);
  const nodes: CompiledNode[] = pending.map(({ node, sources }) => {
    const reads = new Map<string, Read>();
    for (const { compiled } of sources) {
      for (
        const r of extractReads(compiled.ast, { isArray, elementPattern: node.elementPattern ?? undefined })
      ) {
        reads.set((r.elementScoped ? "e" : "r") + formatPath(r.path), r);
      }
    }
    return { ...node, reads: [...reads.values()], level: 0 };
  });
  const graph = buildGraph(nodes);
  for (const cycle of graph.cycles) {
    error(
      "derivations",
      `dependency cycle among ${cycle.join(" -> ")}${
        cycle.length > 1 ? ` -> ${cycle[0]}` : " (reads its own value)"
      }`,
    );
  }
  if (errors.length) return { valid: false, errors, warnings };

  const normalized: ModelSpec = { ...spec, version };
  return {
    valid: true,
    errors,
    warnings,
    model: {
      spec: normalized,
      id: spec.id,
      version,
      schema,
      constants: constants as Record<string, Json>,
      graph,
      derivedTargets: graph.derivedOrder.map((node) => ({ target: node.target!, node })),
      defaults,
      tests,
      compiler: env.compiler,
    },
  };
}
