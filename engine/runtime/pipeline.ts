/**
 * One mutation cycle, all-or-nothing, in the order of SPEC.md: validate every
 * written value against the effective schema, apply, fill defaults into new
 * containers, propagate dirtiness, evaluate eager derivations level by level
 * (lazy ones are marked stale), meta derivations, constraints (rollback or
 * flag) and effects; the caller commits the resulting state or drops it.
 *
 * @module
 */
import jp from "fast-json-patch";
import type { EngineConfig } from "../config.ts";
import {
  type ConstraintViolation,
  type SchemaViolation,
  schemaViolation,
  ServiceError,
  unprocessable,
} from "../errors.ts";
import { DirtySet } from "../graph/dirty.ts";
import { DocumentDraft, expandPattern, getAt } from "../json/document.ts";
import { isContainer, isObject, type Json, jsonEqual } from "../json/value.ts";
import {
  formatPath,
  isPrefixOf,
  parsePath,
  patternMatches,
  pointerToPath,
  type Segment,
  WILDCARD,
} from "../json/path.ts";
import type { CompiledModel } from "../model/compile.ts";
import type { CompiledNode, DerivedNode, EffectNode, MetaNode } from "../model/nodes.ts";
import { compilePattern, RegexLimitError, testPattern } from "../expr/regex.ts";
import type { Effect } from "../model/types.ts";
import type { TraceRecord } from "./traces.ts";
import { truthy } from "./truthy.ts";

/** The committed state of a model. Never modified; a cycle produces a new one. */
export interface ModelState {
  /** The merged document: base fields with derived values spliced in. */
  readonly doc: Json;
  /** Meta cache: `$.path#property` -> value. */
  readonly meta: ReadonlyMap<string, Json>;
  /** Keys of lazy derivations whose values are stale. */
  readonly stale: ReadonlySet<string>;
}

/** Who wrote: decides audit source and which checks apply. */
export type WriteSource = "client" | "patch" | "foldback" | "init";

/** A caller effect that fired. */
export interface DispatchedEffect {
  effectId: string;
  emit: Json;
  payload: Json;
}

/** A non-caller effect that fired, for an executor. */
export interface EffectRequest {
  effectId: string;
  executor: string;
  definition: Effect;
}

/** The result of a committed mutation (SPEC.md "MutationResponse"). */
export interface MutationResult {
  success: true;
  mutatedPaths: string[];
  derivedUpdated: string[];
  metaUpdated: string[];
  flaggedConstraints: ConstraintViolation[];
  dispatchedEffects: DispatchedEffect[];
  traces: TraceRecord[];
}

/** What a settled cycle produced. */
export interface CycleOutcome {
  state: ModelState;
  result: MutationResult;
  effectRequests: EffectRequest[];
  /** Every trace of the cycle (the result carries at most the ring's capacity). */
  traces: TraceRecord[];
  /** Violated rollback constraints: non-empty means the cycle must not commit. */
  rollback: ConstraintViolation[];
}

/** An RFC 6902 operation. */
export interface PatchOperation {
  op: string;
  path: string;
  value?: Json;
  from?: string;
}

const ENFORCED_META = ["minimum", "maximum", "multiple_of", "min_length", "max_length", "pattern", "enum"];

/** A mutation cycle over one model's state. */
export class Cycle {
  readonly #model: CompiledModel;
  readonly #config: EngineConfig;
  readonly #source: WriteSource;
  readonly #draft: DocumentDraft;
  readonly #baseMeta: ReadonlyMap<string, Json>;
  #meta: Map<string, Json> | null = null;
  readonly #stale: Set<string>;
  readonly #dirty = new DirtySet();
  readonly #created: Segment[][] = [];
  readonly #mutated: string[] = [];
  readonly #derived: string[] = [];
  readonly #metaUpdated: string[] = [];
  readonly #traces: TraceRecord[] = [];

  constructor(model: CompiledModel, state: ModelState, config: EngineConfig, source: WriteSource) {
    this.#model = model;
    this.#config = config;
    this.#source = source;
    this.#draft = new DocumentDraft(state.doc);
    this.#baseMeta = state.meta;
    this.#stale = new Set(state.stale);
  }

  /** The document as the cycle currently sees it. */
  get doc(): Json {
    return this.#draft.root;
  }

  get #metaView(): ReadonlyMap<string, Json> {
    return this.#meta ?? this.#baseMeta;
  }

  #writableMeta(): Map<string, Json> {
    return this.#meta ??= new Map(this.#baseMeta);
  }

  // ---------------------------------------------------------------- writes

  /** Parses a mutation key (canonical address, no wildcard). */
  static parseKey(key: string): Segment[] {
    const parsed = parsePath(key);
    if (!parsed.ok) throw unprocessable(`Invalid mutation path: ${parsed.message}`);
    if (parsed.path.includes(WILDCARD)) {
      throw unprocessable(`Invalid mutation path '${key}': a write needs a concrete address, not [*]`);
    }
    return parsed.path;
  }

  #checkIndexLimit(path: readonly Segment[]): void {
    for (const seg of path) {
      if (typeof seg === "number" && seg > this.#config.maxArrayIndex) {
        throw unprocessable(
          `Array index ${seg} in ${
            formatPath(path)
          } exceeds svc.limits.max-array-index (${this.#config.maxArrayIndex})`,
        );
      }
    }
  }

  /** The derivation whose target holds `path`, if any. */
  #derivedAt(path: readonly Segment[]): DerivedNode | undefined {
    return this.#model.derivedTargets.find((d) => isPrefixOf(d.target, path))?.node;
  }

  /**
   * Every reason a write (or, with `value` undefined, a removal) at `path` is
   * refused: derived target, container mismatch, static schema, live metas.
   */
  checkWrite(path: readonly Segment[], value: Json | undefined): SchemaViolation[] {
    const address = formatPath(path);
    const derived = this.#derivedAt(path);
    if (derived) {
      return [{
        path: address,
        keyword: "readOnly",
        message: `is computed by the derivation ${derived.key}`,
      }];
    }
    const violations: SchemaViolation[] = [];
    let cur: Json | undefined = this.#draft.root;
    for (let i = 0; i < path.length && cur !== undefined && cur !== null; i++) {
      const seg = path[i];
      if (typeof seg === "number" ? !Array.isArray(cur) : !isObject(cur)) {
        const holds = Array.isArray(cur) ? "an array" : `a ${typeof cur}`;
        return [{
          path: formatPath(path.slice(0, i)),
          keyword: "type",
          message: `holds ${holds}: cannot write ${address} under it`,
        }];
      }
      cur = (cur as Record<string | number, Json>)[seg];
    }
    const schema = this.#model.schema;
    const metaOf = (addr: string, key: string) => this.#metaView.get(`${addr}#${key}`);
    if (value === undefined || value === null) {
      if (metaOf(address, "required") === true) {
        violations.push({ path: address, keyword: "required", message: "is required and cannot be cleared" });
      } else if (value === undefined && schema.isStaticallyRequired(path)) {
        violations.push({
          path: address,
          keyword: "required",
          message: "is required by the schema and cannot be removed",
        });
      }
      if (value === undefined) return violations;
    }
    if (this.#source !== "foldback") {
      const fragment = schema.fragmentAt(path);
      if (fragment.readOnly === true || metaOf(address, "read_only") === true) {
        violations.push({ path: address, keyword: "readOnly", message: "is read-only" });
      }
    }
    violations.push(...schema.validateAt(path, value));
    const gap = this.#gapBefore(path);
    if (gap) {
      for (const v of schema.validateAt(gap, null)) {
        const message = `${v.message} (writing ${address} would fill ${v.path} with null)`;
        violations.push({ ...v, message });
      }
    }
    violations.push(...this.#checkMetaOverlay(path, value));
    return violations;
  }

  /** The first array slot a write at `path` would pad with null (an index past the end), if any. */
  #gapBefore(path: readonly Segment[]): Segment[] | null {
    let cur: Json | undefined = this.#draft.root;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i];
      const length = Array.isArray(cur) ? cur.length : 0;
      if (typeof seg === "number" && seg > length) return [...path.slice(0, i), length];
      cur = isContainer(cur) ? (cur as Record<string | number, Json>)[seg] : undefined;
    }
    return null;
  }

  /** Live meta values (minimum, pattern, …) at `path` and below, checked against `value`. */
  #checkMetaOverlay(path: readonly Segment[], value: Json): SchemaViolation[] {
    const meta = this.#metaView;
    if (meta.size === 0) return [];
    const out: SchemaViolation[] = [];
    const address = formatPath(path);
    const checkOne = (addr: string, key: string, limit: Json, v: Json | undefined) => {
      if (v === undefined || v === null || limit === null || limit === undefined) return;
      const fail = (message: string) => out.push({ path: addr, keyword: keywordOf(key), message });
      switch (key) {
        case "minimum":
          if (typeof v === "number" && typeof limit === "number" && v < limit) fail(`must be >= ${limit}`);
          break;
        case "maximum":
          if (typeof v === "number" && typeof limit === "number" && v > limit) fail(`must be <= ${limit}`);
          break;
        case "multiple_of":
          if (typeof v === "number" && typeof limit === "number" && limit > 0) {
            const q = v / limit;
            if (Math.abs(Math.round(q) - q) > 1e-9) fail(`must be multiple of ${limit}`);
          }
          break;
        case "min_length":
          if (typeof v === "string" && typeof limit === "number" && [...v].length < limit) {
            fail(`must NOT have fewer than ${limit} characters`);
          }
          break;
        case "max_length":
          if (typeof v === "string" && typeof limit === "number" && [...v].length > limit) {
            fail(`must NOT have more than ${limit} characters`);
          }
          break;
        case "pattern":
          if (typeof v === "string" && typeof limit === "string") {
            try {
              compilePattern(limit);
              if (!testPattern(limit, v, this.#model.schema.regexLimits)) {
                fail(`must match pattern "${limit}"`);
              }
            } catch (err) {
              fail(
                err instanceof RegexLimitError
                  ? err.message
                  : `pattern "${limit}" is not usable: ${(err as Error).message}`,
              );
            }
          }
          break;
        case "enum":
          if (Array.isArray(limit) && !limit.some((allowed) => jsonEqual(allowed, v))) {
            fail(`must be equal to one of the allowed values: ${JSON.stringify(limit)}`);
          }
          break;
      }
    };
    if (!isContainer(value)) {
      for (const key of ENFORCED_META) {
        const limit = meta.get(`${address}#${key}`);
        if (limit !== undefined) checkOne(address, key, limit, value);
      }
      return out;
    }
    for (const [metaKey, limit] of meta) {
      const hash = metaKey.lastIndexOf("#");
      const addr = metaKey.slice(0, hash);
      const key = metaKey.slice(hash + 1);
      const required = key === "required" && limit === true;
      if (!required && !ENFORCED_META.includes(key)) continue;
      if (addr !== address && !addr.startsWith(address + ".") && !addr.startsWith(address + "[")) continue;
      const parsed = parsePath(addr);
      if (!parsed.ok) continue;
      const rel = parsed.path.slice(path.length);
      if (!required) {
        checkOne(addr, key, limit, getAt(value, rel));
        continue;
      }
      // A required field may vanish together with its object, not from an object that stays.
      const kept = getAt(value, rel);
      if (rel.length && isObject(getAt(value, rel.slice(0, -1))) && (kept === undefined || kept === null)) {
        out.push({ path: addr, keyword: "required", message: "is required and cannot be cleared" });
      }
    }
    return out;
  }

  /**
   * Validates and applies a flat mutation in key order, so a later key sees the
   * containers and array slots an earlier one creates. Every violation is collected;
   * after the first one nothing more is applied and the cycle's draft is dropped, so
   * the committed state never sees a write of a refused mutation.
   */
  applyMutations(entries: [Segment[], Json][]): void {
    const violations: SchemaViolation[] = [];
    for (const [path] of entries) this.#checkIndexLimit(path);
    for (const [path, value] of entries) {
      violations.push(...this.checkWrite(path, value));
      if (violations.length) continue;
      this.#draft.set(path, value, this.#created);
      this.#dirty.add(path);
      this.#mutated.push(formatPath(path));
    }
    if (violations.length) throw schemaViolation(violations);
  }

  /** Validates and applies an RFC 6902 patch, operation by operation. */
  applyPatch(ops: PatchOperation[]): void {
    const shapeError = jp.validate(ops as never);
    if (shapeError) throw new ServiceError("bad_request", `Invalid JSON Patch: ${patchMessage(shapeError)}`);
    ops.forEach((op, index) => this.#applyOperation(op, index));
  }

  #resolvePointer(pointer: string, index: number, member: string): Segment[] {
    const path = pointerToPath(pointer, this.#draft.root);
    if (typeof path === "string") throw unprocessable(`Patch operation ${index} ${member}: ${path}`);
    this.#checkIndexLimit(path);
    return path;
  }

  #applyOperation(op: PatchOperation, index: number): void {
    const path = this.#resolvePointer(op.path, index, "path");
    const from = op.from !== undefined && (op.op === "move" || op.op === "copy")
      ? this.#resolvePointer(op.from, index, "from")
      : null;
    const violations: SchemaViolation[] = [];
    const moved = from ? this.#draft.get(from) : undefined;
    switch (op.op) {
      case "add":
      case "replace":
        violations.push(...this.checkWrite(path, op.value as Json));
        break;
      case "remove":
        violations.push(...this.checkWrite(path, undefined));
        break;
      case "move":
        violations.push(...this.checkWrite(from!, undefined));
        if (moved !== undefined) violations.push(...this.checkWrite(path, moved));
        break;
      case "copy":
        if (moved !== undefined) violations.push(...this.checkWrite(path, moved));
        break;
    }
    if (violations.length) throw schemaViolation(violations);

    const parentOf = (p: Segment[]) => p.slice(0, -1);
    const arrayAt = (p: Segment[]) => Array.isArray(this.#draft.get(parentOf(p)));
    const wasPresent = this.#draft.get(path) !== undefined;
    const oldLength = (p: Segment[]) => (this.#draft.get(parentOf(p)) as Json[] | undefined)?.length ?? 0;
    const insertShifts = (op.op === "add" || op.op === "move" || op.op === "copy") && path.length > 0 &&
      arrayAt(path) && (path[path.length - 1] as number) < oldLength(path);
    if (from) this.#draft.prepare(parentOf(from));
    if (path.length) this.#draft.prepare(parentOf(path));
    let outcome: { newDocument: Json };
    try {
      outcome = jp.applyOperation(this.#draft.root, op as never, true, true, true, index) as never;
    } catch (err) {
      const e = err as { name?: string };
      const message = `Patch operation ${index} (${op.op} ${op.path}): ${patchMessage(err)}`;
      throw e.name === "TEST_OPERATION_FAILED"
        ? new ServiceError("conflict", message)
        : unprocessable(message);
    }
    if (op.op === "test") return;
    if (outcome.newDocument !== this.#draft.root) this.#draft.set([], outcome.newDocument, this.#created);

    const touch = (p: Segment[], removed: boolean) => {
      const inArray = p.length > 0 && typeof p[p.length - 1] === "number";
      if (inArray && removed) this.#dirty.add([...parentOf(p), WILDCARD], true);
      else this.#dirty.add(p);
      this.#mutated.push(formatPath(p));
    };
    if (op.op === "move" && from) touch(from, true);
    if (op.op === "remove") touch(path, true);
    else {
      touch(path, false);
      if (insertShifts) this.#dirty.add([...parentOf(path), WILDCARD], true);
      const written = this.#draft.get(path);
      if ((!wasPresent || insertShifts) && isContainer(written)) this.#created.push(path);
    }
  }

  // -------------------------------------------------------------- defaults

  /** Fills schema `default`s and defaultValues rules into containers created by the writes. */
  async applyDefaults(): Promise<void> {
    for (let i = 0; i < this.#created.length; i++) {
      const at = this.#created[i];
      // A created container is new as a whole, not only at the fields the write named.
      this.#dirty.add(at);
      const container = this.#draft.get(at);
      if (!isObject(container)) continue;
      const fragment = this.#model.schema.fragmentAt(at);
      if (isObject(fragment.properties)) {
        for (const [name, sub] of Object.entries(fragment.properties)) {
          if (isObject(sub) && sub.default !== undefined && container[name] === undefined) {
            this.#fill([...at, name], structuredClone(sub.default), "the schema default");
          }
        }
      }
      for (const rule of this.#model.defaults) {
        if (!patternMatches(rule.path, at)) continue;
        const value = await this.#evaluateExpression(
          rule.compiled,
          this.#draft.get(at),
          `default ${formatPath(rule.path)}`,
        );
        if (isObject(value)) this.#mergeDefaults(at, value, `defaultValues rule ${formatPath(rule.path)}`);
      }
    }
  }

  #mergeDefaults(at: Segment[], defaults: Record<string, Json>, source: string): void {
    for (const [key, value] of Object.entries(defaults)) {
      const path = [...at, key];
      const existing = this.#draft.get(path);
      if (existing === undefined) this.#fill(path, value, source);
      else if (isObject(existing) && isObject(value)) this.#mergeDefaults(path, value, source);
    }
  }

  /** Writes a default; a default the schema refuses is a spec error, never committed state. */
  #fill(path: Segment[], value: Json, source: string): void {
    if (this.#derivedAt(path)) return;
    const violations = this.#model.schema.validateAt(path, value);
    if (violations.length) {
      const detail = violations.map((v) => `${v.path} ${v.message}`).join("; ");
      throw unprocessable(
        `The default for ${formatPath(path)} from ${source} violates the schema: ${detail}`,
      );
    }
    this.#draft.set(path, value, this.#created);
    if (isContainer(value)) this.#created.push(path);
    this.#dirty.add(path);
    this.#mutated.push(formatPath(path));
  }

  // ------------------------------------------------------------ evaluation

  async #evaluateExpression(
    compiled: CompiledNode["compiled"],
    parent: Json | undefined,
    what: string,
  ): Promise<Json | undefined> {
    try {
      return await compiled.evaluate(this.#draft.root, { const: this.#model.constants, parent });
    } catch (err) {
      throw unprocessable(`Evaluation of ${what} failed: ${(err as Error).message}`);
    }
  }

  /** Evaluates a node for one element (or globally); records a trace. */
  async #evaluate(
    node: CompiledNode,
    element: Segment[] | null,
    targetPath: string,
  ): Promise<{ value: Json | undefined; error: string | null }> {
    let value: Json | undefined;
    let error: string | null = null;
    try {
      value = await node.compiled.evaluate(this.#draft.root, {
        const: this.#model.constants,
        parent: element ? this.#draft.get(element) : undefined,
      });
    } catch (err) {
      error = (err as Error).message;
    }
    this.#traces.push({
      targetPath,
      expression: node.expression,
      inputPaths: node.reads.map((r) => formatPath(r.path)),
      result: value === undefined ? null : value,
      constraintPassed: null,
      errorMessage: error,
    });
    return { value, error };
  }

  /** Elements (or `[null]` for a global node) of `node` that the changes touched. */
  #work(node: CompiledNode): (Segment[] | null)[] {
    if (!node.elementPattern) return this.#dirty.touches(node) ? [null] : [];
    return this.#dirty.elementsToEvaluate(node, this.#draft.root);
  }

  /** Evaluates stale lazy derivations that `node` reads before it runs. */
  async #materializeInputs(node: CompiledNode): Promise<void> {
    if (this.#stale.size === 0) return;
    for (const key of this.#model.graph.predecessors.get(node.key) ?? []) {
      if (!this.#stale.has(key)) continue;
      const lazy = this.#model.graph.derivedOrder.find((d) => d.key === key)!;
      await this.#materializeInputs(lazy);
      this.#stale.delete(key);
      await this.#derive(lazy, this.#allElements(lazy));
    }
  }

  /** Every element of a per-element node, or `[null]` for a global one. */
  #allElements(node: CompiledNode): (Segment[] | null)[] {
    return node.elementPattern ? expandPattern(this.#draft.root, node.elementPattern) : [null];
  }

  #concreteTarget(node: DerivedNode | MetaNode, element: Segment[] | null): Segment[] {
    const target = node.target;
    return element ? [...element, ...target.slice(element.length)] : target;
  }

  async #derive(node: DerivedNode, elements: (Segment[] | null)[]): Promise<void> {
    for (const element of elements) {
      if (element && !isObject(this.#draft.get(element))) continue;
      const target = this.#concreteTarget(node, element);
      const address = formatPath(target);
      const { value, error } = await this.#evaluate(node, element, address);
      if (error) throw unprocessable(`Evaluation of derivation ${address} failed: ${error}`);
      if (value === undefined) this.#draft.delete(target);
      else this.#draft.set(target, value);
      this.#dirty.add(target);
      this.#derived.push(address);
    }
  }

  /** Evaluates the derivations the changes touched, level by level. */
  async derive(): Promise<void> {
    for (const node of this.#model.graph.derivedOrder) {
      const elements = this.#work(node);
      if (!elements.length) continue;
      if (node.lazy) {
        this.#stale.add(node.key);
        this.#dirty.add(node.target);
        continue;
      }
      await this.#materializeInputs(node);
      await this.#derive(node, elements);
    }
  }

  /** Evaluates every stale lazy derivation (before a read). */
  async materializeLazy(): Promise<void> {
    for (const node of this.#model.graph.derivedOrder) {
      if (!node.lazy || !this.#stale.has(node.key)) continue;
      this.#stale.delete(node.key);
      await this.#derive(node, this.#allElements(node));
    }
  }

  /**
   * Evaluates the meta derivations the changes touched. Meta values live beside the
   * document under concrete paths, so when elements moved or vanished every element
   * of a per-element meta is recomputed and the keys of vanished elements dropped.
   */
  async deriveMetas(): Promise<void> {
    for (const node of this.#model.graph.metas) {
      const reshaped = node.elementPattern !== null && this.#dirty.reshapes(node.elementPattern);
      const elements = reshaped ? this.#allElements(node) : this.#work(node);
      if (reshaped) this.#dropVanishedMetas(node, elements as Segment[][]);
      if (!elements.length) continue;
      await this.#materializeInputs(node);
      for (const element of elements) {
        if (element && this.#draft.get(element) === undefined) continue;
        const key = `${formatPath(this.#concreteTarget(node, element))}#${node.metaKey}`;
        const { value, error } = await this.#evaluate(node, element, key);
        if (error) throw unprocessable(`Evaluation of meta derivation ${key} failed: ${error}`);
        const meta = this.#writableMeta();
        if (value === undefined) meta.delete(key);
        else meta.set(key, value);
        this.#metaUpdated.push(key);
      }
    }
  }

  /** Removes the meta values of `node` whose element is not among `elements`. */
  #dropVanishedMetas(node: MetaNode, elements: Segment[][]): void {
    const live = new Set(
      elements.map((el) => `${formatPath(this.#concreteTarget(node, el))}#${node.metaKey}`),
    );
    const suffix = `#${node.metaKey}`;
    for (const key of this.#metaView.keys()) {
      if (!key.endsWith(suffix) || live.has(key)) continue;
      const path = parsePath(key.slice(0, -suffix.length));
      if (!path.ok || !patternMatches(node.target, path.path)) continue;
      this.#writableMeta().delete(key);
      this.#metaUpdated.push(key);
    }
  }

  /** Evaluates the constraints the changes touched; returns the failures by policy. */
  async checkConstraints(): Promise<{ rollback: ConstraintViolation[]; flagged: ConstraintViolation[] }> {
    const rollback: ConstraintViolation[] = [];
    const flagged: ConstraintViolation[] = [];
    for (const node of this.#model.graph.constraints) {
      const elements = this.#work(node);
      if (!elements.length) continue;
      await this.#materializeInputs(node);
      const c = node.constraint;
      let failed = false;
      for (const element of elements) {
        const { value, error } = await this.#evaluate(node, element, node.key);
        const passed = !error && (value === undefined || value === null || truthy(value));
        this.#traces[this.#traces.length - 1].constraintPassed = passed;
        if (!passed) failed = true;
      }
      if (failed) {
        (c.policy === "rollback" ? rollback : flagged).push({
          constraintId: c.id,
          message: c.message,
          policy: c.policy,
        });
      }
    }
    return { rollback, flagged };
  }

  /** Evaluates the triggers of the effects the changes touched. */
  async collectEffects(): Promise<{ dispatched: DispatchedEffect[]; requests: EffectRequest[] }> {
    const dispatched: DispatchedEffect[] = [];
    const requests: EffectRequest[] = [];
    for (const node of this.#model.graph.effects) {
      if (!this.#dirty.touches(node)) continue;
      await this.#materializeInputs(node);
      const { value, error } = await this.#evaluate(node, null, node.key);
      if (error || !truthy(value)) continue;
      const effect = node.effect;
      if (effect.executor !== "caller") {
        requests.push({
          effectId: effect.definition.id,
          executor: effect.executor,
          definition: effect.definition,
        });
        continue;
      }
      dispatched.push({
        effectId: effect.definition.id,
        emit: effect.definition.emit ?? null,
        payload: await this.#payload(node),
      });
    }
    return { dispatched, requests };
  }

  async #payload(node: EffectNode): Promise<Json> {
    const payload = node.effect.payload;
    const run = async (compiled: CompiledNode["compiled"]) => {
      try {
        return await compiled.evaluate(this.#draft.root, { const: this.#model.constants });
      } catch (err) {
        return { error: (err as Error).message };
      }
    };
    if (payload === null) return null;
    if ("evaluate" in payload && typeof payload.evaluate === "function") {
      return (await run(payload as CompiledNode["compiled"])) ?? null;
    }
    const out: Record<string, Json> = {};
    for (const [key, compiled] of Object.entries(payload as Record<string, CompiledNode["compiled"]>)) {
      const value = await run(compiled);
      if (value !== undefined) out[key] = value;
    }
    return out;
  }

  /** True when the cycle changed nothing. */
  get unchanged(): boolean {
    return this.#dirty.empty;
  }

  /** Runs everything after the writes and returns the outcome (commit is the caller's). */
  async settle(options: { enforceConstraints: boolean; traceLimit: number }): Promise<CycleOutcome> {
    await this.applyDefaults();
    await this.derive();
    await this.deriveMetas();
    const { rollback, flagged } = options.enforceConstraints
      ? await this.checkConstraints()
      : { rollback: [], flagged: [] };
    const { dispatched, requests } = rollback.length
      ? { dispatched: [], requests: [] }
      : await this.collectEffects();
    const traces = this.#traces;
    return {
      state: { doc: this.#draft.root, meta: this.#metaView, stale: this.#stale },
      rollback,
      effectRequests: requests,
      traces,
      result: {
        success: true,
        mutatedPaths: this.#mutated,
        derivedUpdated: this.#derived,
        metaUpdated: this.#metaUpdated,
        flaggedConstraints: flagged,
        dispatchedEffects: dispatched,
        traces: traces.length > options.traceLimit
          ? traces.slice(traces.length - options.traceLimit)
          : traces,
      },
    };
  }

  /** Marks the whole document as changed (model creation, evolution, restore). */
  markEverything(): void {
    this.#dirty.add([]);
  }

  /** Records the document root as a newly created container (defaults seed it). */
  markRootCreated(): void {
    this.#created.push([]);
  }
}

function keywordOf(metaKey: string): string {
  return metaKey.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

function patchMessage(err: unknown): string {
  const e = err as { name?: string; message?: string };
  const first = (e.message ?? String(err)).split("\n")[0];
  return e.name && e.name !== "Error" ? `${first} [${e.name}]` : first;
}
