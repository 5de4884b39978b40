/**
 * The isomorphic engine: what server/, cli/ and browser/ import. Pure
 * TypeScript; storage, clock and hashing come in through small interfaces.
 *
 * @module
 */
// A stored log entry's agreement with its record (loggedWriteDisagreement) is for the stores that keep the two
// together, which import it from audit/chain.ts: the browser bundle, which re-exports this module, leaves it out.
export {
  type AuditBody,
  type AuditRecord,
  type AuditSource,
  type AuditVerification,
  GENESIS_HASH,
  sealRecord,
  verifyChain,
} from "./audit/chain.ts";
// Reading configuration from the environment (engineConfig and its readers) is for hosts, which import
// config.ts: the browser bundle, which re-exports this module, leaves it out.
export {
  type ConfigLookup,
  DEFAULT_CONFIG,
  type EngineConfig,
  type InheritedEffectsPolicy,
} from "./config.ts";
// badGateway (an upstream's failure, the LLM provider's) is for hosts, which import it from errors.ts: the
// browser bundle, which re-exports this module, leaves it out.
export {
  badRequest,
  conflict,
  type ConstraintViolation,
  constraintViolation,
  describeFindings,
  type ErrorKind,
  type Finding,
  notFound,
  type SchemaViolation,
  schemaViolation,
  ServiceError,
  specInvalid,
  STATUS_OF_KIND,
  tooLarge,
  tooMany,
  unavailable,
  unprocessable,
  versionConflict,
} from "./errors.ts";
export { applyEvolution } from "./evolve/apply.ts";
export { parseEvolution, type SpecEvolution } from "./evolve/evolution.ts";
// The SpecEvolution JSON Schema (evolve/schema.ts) is not exported here: its hosts (MCP, the LLM generator)
// import it there. The browser bundle still holds it, as parseEvolution validates evolutions with it.
export { loadRegexEngine } from "./expr/re2.ts";
export type { GraphNodeView, GraphView } from "./graph/projection.ts";
export {
  canonicalizePath,
  formatPath,
  isPrefixOf,
  type ParsedPath,
  parsePath,
  type Path,
  pathOrNull,
  pathsOverlap,
  pathToPointer,
  patternMatches,
  type Segment,
} from "./json/path.ts";
export type { Json, JsonObject } from "./json/value.ts";
export { type CompiledModel, compileSpec, validateSpec, type ValidationReport } from "./model/compile.ts";
export * from "./model/types.ts";
export type { LibraryDescription } from "./model/library_description.ts";
// The operations' helpers (argument checks, JSON Schemas, REST bindings: operations/mod.ts) are for hosts, which
// import them there: the browser bundle, which re-exports this module, leaves them out.
export { type Invoker, localInvoker } from "./operations/invoker.ts";
export type { AnyOperation, Operation } from "./operations/operation.ts";
export { OPERATIONS } from "./operations/registry.ts";
export { remoteInvoker, type RemoteOptions } from "./operations/remote.ts";
/** Every operation by name (`operations.mutate`, `operations.getState`, …). */
export * as operations from "./operations/registry.ts";
export * from "./ports.ts";
export type {
  DispatchedEffect,
  EffectRequest,
  ModelState,
  MutationResult,
  PatchOperation,
} from "./runtime/results.ts";
export {
  formatInstant,
  ModelRuntime,
  parseInstant,
  type RuntimeEnv,
  type Snapshot,
} from "./runtime/runtime.ts";
export * from "./runtime/testing.ts";
export type { TraceRecord } from "./runtime/traces.ts";
export * from "./service/api.ts";
export * from "./service/memory.ts";
export * from "./service/ports.ts";
export * from "./service/service.ts";
export * from "./version.ts";
export type { EvaluatedComponent, EvaluatedView } from "./view/evaluate.ts";
