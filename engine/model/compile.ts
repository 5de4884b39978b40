/**
 * Validation and compilation of a ModelSpec in one pass. The shape check
 * (`shape.ts`, the ModelSpec JSON Schema) judges every value; one compiler per
 * section (`sections/`) adds the semantic findings — addresses, JSONata,
 * duplicates, overlapping targets, executor kinds, view references — and
 * compiles what it owns; `node_graph.ts` links the nodes and reports dependency
 * cycles. Every finding is `{location, message}`; a valid spec yields a
 * {@link CompiledModel}.
 *
 * @module
 */
import { type Finding, shortened } from "../errors.ts";
import type { ExpressionCompiler } from "../expr/compiler.ts";
import type { DependencyGraph } from "../graph/graph.ts";
import type { Segment } from "../json/path.ts";
import { isObject } from "../json/value.ts";
import { ExpressionScope } from "./expression_scope.ts";
import { normalizeLibrary } from "./library_layers.ts";
import { ModelBindings } from "./model_bindings.ts";
import { linkNodes } from "./node_graph.ts";
import { type Chunks, drain, paced } from "../pacing.ts";
import { undeclaredReads } from "./undeclared_reads.ts";
import { type NamedAddress, undeclaredAddresses } from "./undeclared_addresses.ts";
import { unknownEntryMembers } from "./unknown_members.ts";
import type { CompiledDefault, CompiledNode, DerivedNode } from "./nodes.ts";
import type { SchemaIndex } from "./schema_index.ts";
import { compileConstants } from "./sections/constants.ts";
import { compileConstraints } from "./sections/constraints.ts";
import { type CompileEnv, SectionContext } from "./sections/context.ts";
import { compileDefaultValues } from "./sections/default_values.ts";
import { compileDerivations } from "./sections/derivations.ts";
import { compileEffects } from "./sections/effects.ts";
import { type CompiledLibrary, compileLibrary } from "./sections/library.ts";
import { compileMetaDerivations } from "./sections/meta_derivations.ts";
import { compileSchema } from "./sections/schema.ts";
import { compileTestCases } from "./sections/test_cases.ts";
import { compileViewDefinition } from "./sections/view_definition.ts";
import { checkShape } from "./shape.ts";
import { DEFAULT_VERSION, type ModelSpec, type TestCase } from "./types.ts";

/** The outcome of validation: all findings in one pass. */
export interface ValidationReport {
  valid: boolean;
  errors: Finding[];
  warnings: Finding[];
}

/** Everything the runtime needs from a valid spec; immutable and shareable. */
export interface CompiledModel {
  spec: ModelSpec;
  id: string;
  version: string;
  schema: SchemaIndex;
  /** The library, when the spec has one. */
  library: CompiledLibrary | null;
  /** `$const` and the library's exports: the bindings of every expression of the model. */
  bindings: ModelBindings;
  graph: DependencyGraph<CompiledNode>;
  derivedTargets: { target: Segment[]; node: DerivedNode }[];
  defaults: CompiledDefault[];
  tests: TestCase[];
  /** Compiles an ad-hoc expression through the shared cache. */
  compiler: ExpressionCompiler;
}

/** Validates a spec; every finding is reported. */
export function validateSpec(spec: unknown, env: CompileEnv): ValidationReport {
  const { errors, warnings } = compileSpec(spec, env);
  return { valid: errors.length === 0, errors, warnings };
}

/** A spec's findings, and its compiled model when there are no errors. */
type Compiled = ValidationReport & { model?: CompiledModel };

/** Validates and compiles a spec. `model` is present only when there are no errors. */
export function compileSpec(input: unknown, env: CompileEnv): Compiled {
  return drain(compiling(input, env));
}

/**
 * As {@link compileSpec}, yielding to the event loop between entries every few
 * ms of work (pacing.ts): a spec near `svc.limits.max-spec-bytes` takes seconds.
 */
export function compileSpecPaced(input: unknown, env: CompileEnv): Promise<Compiled> {
  return paced(compiling(input, env));
}

/** The compile, its findings shortened as messages are (a hostile name in a location or a message). */
function* compiling(input: unknown, env: CompileEnv): Chunks<Compiled> {
  const compiled = yield* compilingWhole(input, env);
  return { ...compiled, errors: shortened(compiled.errors), warnings: shortened(compiled.warnings) };
}

/** The compile, pausing between entries of the sections that grow with the spec. */
function* compilingWhole(input: unknown, env: CompileEnv): Chunks<Compiled> {
  const shape = checkShape(input);
  yield;
  if (!isObject(input)) return { valid: false, errors: shape, warnings: [] };
  const spec = input as unknown as ModelSpec;

  // The library comes first: what it exports is part of what every other expression may read.
  const libraryContext = new SectionContext(env);
  const sections = new Map<string, SectionContext>([["library", libraryContext]]);
  const library = compileLibrary(spec, libraryContext);
  const scope = new ExpressionScope(
    library.names,
    undefined,
    Object.keys(isObject(spec.constants) ? spec.constants : {}),
  );
  const section = (name: string) => {
    const ctx = new SectionContext(env, scope);
    sections.set(name, ctx);
    return ctx;
  };
  const schema = yield* compileSchema(spec, section("schema"));
  const constants = compileConstants(spec);
  const derivations = yield* compileDerivations(spec, section("derivations"));
  const derivedTargets = derivations.flatMap(({ node }) => node.kind === "DERIVED" ? [node.target] : []);
  const definitions = [
    ...derivations,
    ...yield* compileMetaDerivations(spec, section("metaDerivations")),
    ...yield* compileConstraints(spec, section("constraints")),
    ...compileEffects(spec, section("effects"), { schema, derivedTargets }, library.library?.lends),
  ];
  yield;
  const defaults = yield* compileDefaultValues(spec, section("defaultValues"));
  const named: NamedAddress[] = [];
  const tests = compileTestCases(spec, section("tests"), named);
  compileViewDefinition(spec, section("viewDefinition"), named);
  unknownEntryMembers(spec, (name, finding) => sections.get(name)!.warnings.push(finding));

  const { errors, warnings } = inDocumentOrder(shape, sections);
  if (isObject(spec.template) && typeof spec.template.ref === "string") {
    // The service flattens a branch before compiling it; only a host without repositories gets here.
    errors.push({
      location: "template",
      message:
        `the template '${spec.template.ref}' is resolved when the model is created; it cannot be resolved here`,
    });
  }
  if (!schema || errors.length) return { valid: false, errors, warnings };

  const linking = new SectionContext(env, scope);
  const graph = yield* linkNodes(definitions, schema, linking, library.library?.lends);
  if (linking.errors.length) return { valid: false, errors: linking.errors, warnings };
  // What the service writes: derived values, and effects' status documents (the author declares neither).
  const produced = graph.nodes.flatMap((node) =>
    node.kind === "DERIVED"
      ? [node.target]
      : node.kind === "EFFECT" && node.effect.statusPath
      ? [node.effect.statusPath]
      : []
  );
  warnings.push(
    ...linking.warnings,
    ...undeclaredReads(graph.nodes, schema, produced),
    // A meta derivation of a field nothing declares or derives (a typo) sets what nothing ever meets.
    ...undeclaredAddresses(
      [
        ...graph.metas.map((n) => ({
          path: n.target,
          at: `metaDerivations[${n.index}].path`,
          verb: "sets meta of",
        })),
        ...named,
      ],
      schema,
      produced,
    ),
  );

  const version = typeof spec.version === "string" && spec.version.trim() !== ""
    ? spec.version
    : DEFAULT_VERSION;
  return {
    valid: true,
    errors,
    warnings,
    model: {
      spec: specOf(spec, version),
      id: spec.id,
      version,
      schema,
      library: library.library,
      bindings: new ModelBindings(constants, library.library, env.config.maxDepth),
      graph,
      derivedTargets: graph.derivedOrder.map((node) => ({ target: node.target, node })),
      defaults,
      tests,
      compiler: env.compiler,
    },
  };
}

/** The spec as the model keeps it: its version filled in, a single local library layer as `define`. */
function specOf(spec: ModelSpec, version: string): ModelSpec {
  const stored = { ...spec, version };
  if (spec.library !== undefined && spec.library !== null) stored.library = normalizeLibrary(spec.library);
  return stored;
}

/**
 * Merges the shape check's findings with the sections' own: first the shape
 * findings of members no section compiles (unknown fields, `id`, `version`, …),
 * then section by section, entry by entry, the compiler's findings and the
 * shape findings at locations the compiler did not speak to.
 */
function inDocumentOrder(
  shape: Finding[],
  sections: ReadonlyMap<string, SectionContext>,
): { errors: Finding[]; warnings: Finding[] } {
  const sectionOf = (f: Finding) => /^[^.[]+/.exec(f.location)?.[0] ?? f.location;
  const entryOf = (f: Finding) => Number(/^[^.[]+\[(\d+)\]/.exec(f.location)?.[1] ?? -1);
  const errors = shape.filter((f) => !sections.has(sectionOf(f)));
  const warnings: Finding[] = [];
  for (const [name, ctx] of sections) {
    const spoken = new Set(ctx.errors.map((f) => f.location));
    const merged = [
      ...ctx.errors,
      ...shape.filter((f) => sectionOf(f) === name && !spoken.has(f.location)),
    ];
    errors.push(...merged.sort((a, b) => entryOf(a) - entryOf(b)));
    warnings.push(...ctx.warnings);
  }
  return { errors, warnings };
}
