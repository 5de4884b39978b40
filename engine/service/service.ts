/**
 * The service layer: the registry of models and every operation on them, once.
 * Surfaces (console, REST, WebSocket, MCP, browser) are thin adapters over it.
 *
 * A write travels: surface -> {@link ModelService.mutate} -> per-model queue ->
 * runtime pipeline -> durable commit (state, log, audit) -> runtime commit ->
 * change event to subscribers.
 *
 * @module
 */
import type { AuditSigner } from "../audit/signing.ts";
import {
  type AuditRecord,
  type AuditVerification,
  GENESIS_HASH,
  sealRecord,
  verifyChain,
} from "../audit/chain.ts";
import { DEFAULT_CONFIG, type EngineConfig } from "../config.ts";
import {
  badRequest,
  conflict,
  describeFindings,
  type Finding,
  isTransient,
  notFound,
  ServiceError,
  specInvalid,
  tooLarge,
  tooMany,
  unavailable,
  versionConflict,
} from "../errors.ts";
import { MAX_QUOTED_WORD, quoted } from "../quoted.ts";
import {
  type AttemptStart,
  backoffDelay,
  type DispatchHost,
  EffectDispatcher,
} from "../effects/dispatcher.ts";
import type { EffectExecutor, ExecutorOutcome } from "../effects/executor.ts";
import { effectNode, responseWrites, type Settlement, settlement } from "../effects/foldback.ts";
import { stuckStatuses } from "../effects/stuck_statuses.ts";
import { linkExecutor } from "../composition/link_executor.ts";
import { approved, type PendingEffect, pendingEffects } from "../composition/quarantine.ts";
import { type CreatedContainers, getAt, valueAt } from "../json/document.ts";
import { formatPath, parsePath } from "../json/path.ts";
import type { Effect } from "../model/types.ts";
import { effectGate } from "../runtime/effects.ts";
import { loadClosureCompiler } from "../expr/closures.ts";
import { Composition, type CompositionGraph, unknownEffect } from "./composition.ts";
import type { Repository } from "../composition/repository.ts";
import { type EffectJob, jobsOf, withKept } from "../effects/job.ts";
import { applyEvolution, changedEffectIds } from "../evolve/apply.ts";
import { asSent, parseEvolution, type SpecEvolution } from "../evolve/evolution.ts";
import { evolutionRefused } from "../evolve/refusals.ts";
import { carryForward } from "../evolve/state.ts";
import { ExpressionCompiler } from "../expr/compiler.ts";
import { withRegexEngine } from "../expr/re2.ts";
import { type GraphView, projectGraph } from "../graph/projection.ts";
import { cloneJson, isObject, type Json, jsonEqual, type JsonObject } from "../json/value.ts";
import { GLOBAL_SCHEDULER, type Platform, type Scheduler, webPlatform } from "../ports.ts";
import { RetriesUntilThrough } from "./retries.ts";
import { DEFAULT_POLICY } from "../model/sections/effects.ts";
import type { EffectPolicy } from "../model/nodes.ts";
import { statusDocument } from "../runtime/effects.ts";
import type {
  CycleOutcome,
  EffectRequest,
  ModelState,
  MutationResult,
  PatchOperation,
} from "../runtime/results.ts";
import {
  formatInstant,
  ModelRuntime,
  parseInstant,
  type RuntimeEnv,
  type Snapshot,
} from "../runtime/runtime.ts";
import { type VerificationReport, verify } from "../runtime/testing.ts";
import { canonicalWrites } from "../runtime/write_checks.ts";
import type { TraceRecord } from "../runtime/traces.ts";
import { type CompiledModel, compileSpecPaced } from "../model/compile.ts";
import type { ModelSpec } from "../model/types.ts";
import { describeLibrary, type LibraryDescription } from "../model/library_description.ts";
import { evaluateViewDelta } from "../view/delta.ts";
import { checkViewId, evaluateView, viewStateOf } from "../view/evaluate.ts";
import type { EvaluatedComponent, EvaluatedView } from "../view/evaluate.ts";
import type {
  AuditParams,
  BlobContent,
  BlobGcReport,
  BlobRef,
  Evolved,
  ModelApi,
  ModelInfo,
  WriteOptions,
  WriteResult,
} from "./api.ts";
import { type AuthoringEngine, localAuthoring } from "./authoring.ts";
import {
  checkEnvelope,
  checkMutationValues,
  checkPatchValues,
  checkSpecSize,
  checkStateBytes,
  type EnvelopeMember,
} from "./limits.ts";
import {
  type AiEvolutionRequest,
  type AiEvolutionResult,
  checkDescription,
  checkModelId,
  checkPrompt,
  type EvolutionGenerationRequest,
  type EvolutionGenerationResult,
  type EvolutionPreviewRequest,
  type GenerationContext,
  type GenerationPreviewRequest,
  type GenerationRequest,
  type GenerationResult,
  type GenerationStatus,
  type InteractionRecord,
  noProvider,
  type PromptPreview,
  type RunOptions,
  type SpecGenerator,
} from "./generation.ts";
import { MemoryBlobStore, MemoryModelStore } from "./memory.ts";
import {
  type BlobStore,
  type LoadedModel,
  type LogEntry,
  type ModelStore,
  type PersistedState,
  type RecoveryDeletion,
  type RecoveryRecord,
  type RecoverySummary,
  SINGLE_WRITER,
  StaleModelError,
  type StoreChange,
  type StoreCoordination,
  type StoredCommits,
} from "./ports.ts";
import { SerialQueue } from "./queue.ts";
import { evaluateLogged, replayStored, toPersisted } from "./replay.ts";
import type { BatchHost, Evaluation, QueuedWrite, WriteBatcher } from "./write_batch.ts";
import { checkpointOf } from "./compaction.ts";
import { notLoaded, priorOf, type UnloadedModel, type UnloadedSummary } from "./unloaded.ts";

/** Events subscribers receive after commits. */
export type ServiceEvent =
  | { type: "mutation"; modelId: string; source: LogEntry["source"]; result: MutationResult }
  | { type: "spec-evolved"; modelId: string; version: string }
  /** A snapshot replaced the model's state (no audit record, no WebSocket frame: SPEC.md lists none). */
  | { type: "restored"; modelId: string }
  | { type: "created"; modelId: string }
  /**
   * The model is gone from this service: deleted, or `unloaded` (another process sharing the store gave it a
   * spec this one does not compile: stored still, it may be repaired; its later deletion is not heard again).
   */
  | { type: "deleted"; modelId: string; unloaded?: true };

/** Outcome labels of a mutation attempt, for metrics. */
export type MutationOutcome = "success" | "flagged" | "rollback" | "schema_violation" | "error";

/** Hooks a host can observe (metrics, logs). */
export interface ServiceObserver {
  mutationFinished?(modelId: string, outcome: MutationOutcome, durationMs: number): void;
  effectsDispatched?(modelId: string, count: number): void;
  auditRecorded?(modelId: string, source: string): void;
  modelCreated?(modelId: string): void;
  /** Non-caller effects fired by a commit (their jobs are in the outbox). */
  effectsRequested?(modelId: string, requests: EffectRequest[]): void;
  /** One executor attempt ended. */
  effectAttempted?(kind: string, outcome: "success" | "failure", durationMs: number): void;
  /** A job ended: `applied`, `failed`, `cancelled` or `superseded`. */
  effectSettled?(modelId: string, effectId: string, phase: Settlement["phase"]): void;
  warn?(message: string): void;
}

/** Construction options. */
export interface ServiceOptions {
  /** Signs each audit record's hash (`svc.audit.signing-key`); verification then requires a signed head. */
  auditSigner?: AuditSigner;
  config?: EngineConfig;
  platform?: Platform;
  store?: ModelStore;
  blobs?: BlobStore;
  observer?: ServiceObserver;
  /**
   * Whether destructive administration (blob garbage collection with `apply`)
   * is allowed; a server in open mode says no. Default true (an embedded
   * service belongs to its process).
   */
  adminWrites?: boolean;
  /**
   * The effect executors of this host (`timer`, `server`, `llm`, plugins).
   * Given, the service runs effects: fired jobs wait in the outbox until their
   * executor settles them. Absent, jobs are kept (their status `pending`) but
   * never run: a host that executes nothing.
   */
  executors?: readonly EffectExecutor[];
  /**
   * The repositories after this service's own models (`svc.composition.repositories`):
   * where templates, link targets and promotions are found.
   */
  repositories?: readonly Repository[];
  /**
   * LLM generation (llm/ builds one from `svc.llm.*`); without it every
   * generation operation fails with 503.
   */
  generator?: SpecGenerator;
  /**
   * Commits a model's writes queued back to back together, where the store
   * offers `commitMany` (commitBatches of engine/service/write_batch.ts, which
   * the server passes); without it every write commits alone.
   */
  writeBatcher?: WriteBatcher;
}

interface Slot {
  runtime: ModelRuntime;
  queue: SerialQueue;
  deleted: boolean;
  auditHead: { sequence: number; hash: string };
  /** Outstanding effect jobs (the outbox), by id. */
  jobs: Map<string, EffectJob>;
  /** Keyed by the compiled model: an evolution (even without a new version) replaces it. */
  verification?: { model: CompiledModel; report: VerificationReport };
  /**
   * The writes queued back to back since the last other task (batched stores
   * only): a batch takes them from here, so no write moves past another task.
   */
  openRun?: QueuedWrite[];
}

/**
 * Refreshes-and-retries one queued operation may make per slot of the
 * mutation queue, when other processes sharing the store keep committing first.
 */
const STALE_RETRIES = 4;

/** The registry of models and every operation on them. */
export class ModelService implements ModelApi {
  readonly config: EngineConfig;
  readonly platform: Platform;
  readonly store: ModelStore;
  readonly blobs: BlobStore;
  readonly compiler: ExpressionCompiler;
  /** The pure authoring tools (validate, eval, test, dry run), sharing this service's compiler. */
  readonly authoring: AuthoringEngine;
  readonly #observer: ServiceObserver;
  readonly #auditSigner?: AuditSigner;
  readonly #adminWrites: boolean;
  readonly #generator?: SpecGenerator;
  readonly #writeBatcher?: WriteBatcher;
  readonly #slots = new Map<string, Slot>();
  readonly #reserved = new Set<string>();
  /** Reserved ids another process changed meanwhile: looked up again when the reservation ends without a model. */
  readonly #missedWhileReserved = new Set<string>();
  /**
   * Models stored but not loaded (at start, or since another process gave
   * them a spec this one refuses), by id, with why and what was stored: their ids stay taken (a create would discard their stored data)
   * until an evolution repairs them or a deletion discards them.
   */
  readonly #unloaded = new Map<string, UnloadedModel>();
  /** Blob uploads, from the budget check to the put (never refused: only counted tasks are). */
  readonly #blobWrites = new SerialQueue(1, "blob uploads");
  readonly #listeners = new Set<(event: ServiceEvent) => void>();
  readonly #dispatcher: EffectDispatcher | null;
  readonly #composition: Composition;
  readonly #validateEffect: (kind: string, effect: JsonObject) => string[];
  readonly #coordination: StoreCoordination;
  /** Models other processes created, being loaded here. */
  readonly #adopting = new Map<string, Promise<void>>();
  /** Aborted by {@link stopGenerations}: every generation runs under it. */
  readonly #generations = new AbortController();
  #unwatch: () => void = () => {};
  /** Failed refreshes waiting to run again ({@link #refreshing}); closed by {@link close}. */
  readonly #refreshRetries: RetriesUntilThrough;

  get #scheduler(): Scheduler {
    return this.platform.scheduler ?? GLOBAL_SCHEDULER;
  }

  private constructor(options: ServiceOptions) {
    this.config = options.config ?? { ...DEFAULT_CONFIG };
    this.platform = options.platform ?? webPlatform();
    this.store = options.store ?? new MemoryModelStore();
    this.#coordination = this.store.coordination ?? SINGLE_WRITER;
    this.blobs = options.blobs ?? new MemoryBlobStore();
    this.#observer = options.observer ?? {};
    this.#refreshRetries = new RetriesUntilThrough(this.#scheduler);
    this.#auditSigner = options.auditSigner;
    this.#adminWrites = options.adminWrites ?? true;
    this.#generator = options.generator;
    this.#writeBatcher = options.writeBatcher;
    this.compiler = ExpressionCompiler.fromConfig(this.config);
    this.authoring = localAuthoring({
      config: this.config,
      clock: this.platform.clock,
      compiler: this.compiler,
    });
    this.#composition = new Composition({
      config: this.config,
      hasher: this.platform.hasher,
      scheduler: this.#scheduler,
      repositories: options.repositories ?? [],
      localSpec: (id) => this.#slots.get(id)?.runtime.model.spec ?? null,
      localIds: () => [...this.#slots.keys()],
      mutate: (id, mutations) => this.mutate(id, mutations as Record<string, Json>),
      state: (id) => this.getState(id),
      subscribe: (listener) => this.subscribe(listener),
      refreshWatch: (sourceId, effectId, value, problem) =>
        this.#refreshWatch(sourceId, effectId, value, problem),
    });
    const validators = new Map((options.executors ?? []).map((e) => [e.kind, e.validate]));
    this.#validateEffect = (kind, effect) => validators.get(kind)?.(effect) ?? [];
    // A host that runs effects runs links too: they reach models through this service's composition.
    this.#dispatcher = options.executors
      ? new EffectDispatcher(this.#dispatchHost(), [
        ...options.executors,
        linkExecutor(this.#composition.linkTargets()),
      ], {
        clock: this.platform.clock,
        scheduler: this.#scheduler,
        observer: { attemptFinished: this.#observer.effectAttempted, warn: this.#observer.warn },
      })
      : null;
  }

  /** Opens a service, loads every stored model and resumes their outstanding effects. */
  static async open(options: ServiceOptions = {}): Promise<ModelService> {
    // Where the compiled closures come in a chunk of their own (the browser), fetch them before the
    // first compile; without them (offline and not cached) expressions are interpreted.
    await loadClosureCompiler().catch(() => {});
    const service = new ModelService(options);
    // Changes reported while the stored models load wait until they are all built: a refresh or an
    // adoption racing the load could pair a runtime with a revision it does not reflect.
    let early: StoreChange[] | null = [];
    service.#unwatch = await service.#coordination.watch((change) =>
      early ? early.push(change) : service.#onStoreChange(change)
    );
    await service.#loadStored();
    const reported = early;
    early = null;
    for (const change of reported) service.#onStoreChange(change);
    // Jobs another live process holds are refused when they fall due (`claim` in begin).
    for (const [id, slot] of service.#slots) {
      // Work a dead process left pending without a job (or a watched read that failed) is fired again, by a
      // host that runs effects (one that runs none, opened for a look, changes nothing).
      if (service.#dispatcher) await service.#exclusive(id, (slot) => service.#rearm(slot));
      service.#dispatcher?.enqueue([...slot.jobs.values()]);
      await service.#armWatches(slot);
    }
    return service;
  }

  /** The runtime environment models run in. */
  get runtimeEnv(): RuntimeEnv {
    return { config: this.config, clock: this.platform.clock };
  }

  /**
   * Compiles a spec, loading RE2 first when it needs it (the browser bundles load it on demand),
   * yielding to the event loop meanwhile: other models are served while a large spec compiles.
   */
  #compile(spec: unknown) {
    return withRegexEngine(() =>
      compileSpecPaced(spec, {
        compiler: this.compiler,
        config: this.config,
        now: this.platform.clock.now,
        validateEffect: this.#validateEffect,
      })
    );
  }

  /** Compiles a spec or throws the 422 with every finding. */
  async #compileOrThrow(spec: unknown): Promise<CompiledModel> {
    const report = await this.#compile(spec);
    if (!report.model) throw specInvalid(report.errors, report.warnings);
    return report.model;
  }

  /** Subscribes to change events; returns the unsubscribe function. */
  subscribe(listener: (event: ServiceEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(event: ServiceEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (err) {
        this.#observer.warn?.(`event listener failed: ${(err as Error).message}`);
      }
    }
  }

  async #loadStored(): Promise<void> {
    const { maxStateBytes } = this.config;
    for (const stored of await this.store.load()) {
      const slot = await this.#build(stored);
      if (!slot) continue;
      this.#slots.set(slot.runtime.model.id, slot);
      // A limit lowered over a stored state: say so at startup, not first at the next write's 413.
      const bytes = slot.runtime.stateBytes;
      if (bytes > maxStateBytes) {
        this.#observer.warn?.(
          `model '${slot.runtime.model.id}': its stored state is ${bytes} bytes, over svc.limits.max-state-bytes ` +
            `(${maxStateBytes}); it loads and reads as before, but a write that grows it is refused (413) ` +
            "until it shrinks below the limit or the limit is raised",
        );
      }
    }
  }

  /**
   * A slot for a stored model, its state rebuilt; `null` when its spec no
   * longer compiles (the model is kept as unloaded, for a repair or a deletion).
   */
  async #build(stored: LoadedModel): Promise<Slot | null> {
    const id = stored.spec?.id ?? "(unknown)";
    const report = await this.#compile(stored.spec);
    if (!report.model) {
      this.#observer.warn?.(
        `model '${id}' not loaded: its stored spec no longer validates: ${describeFindings(report.errors)}`,
      );
      // A model heard gone when it stopped loading stays so (its deletion is not heard twice).
      const gone = this.#unloaded.get(id)?.gone;
      if (typeof stored.spec?.id === "string") {
        this.#unloaded.set(id, { findings: report.errors, stored, gone });
      }
      return null;
    }
    // Another process may have repaired it.
    this.#unloaded.delete(id);
    const { runtime, problem } = await this.#rebuild(report.model, stored);
    if (problem !== null) {
      await this.#keepForRecovery(stored, problem);
      await this.store.save(report.model.spec, toPersisted(runtime.state));
    }
    return this.#newSlot(runtime, await this.store.lastAudit(id), stored.jobs ?? []);
  }

  /**
   * A runtime of `model` over a stored state (its base, then its log replayed),
   * and why that state could not be rebuilt, `null` when it was; the runtime
   * then holds the initial state.
   */
  async #rebuild(
    model: CompiledModel,
    stored: LoadedModel,
  ): Promise<{ runtime: ModelRuntime; problem: string | null }> {
    let { runtime } = await ModelRuntime.create(model, this.runtimeEnv);
    let problem = stored.problem ?? null;
    if (stored.base && problem === null) {
      try {
        await replayStored(runtime, stored.base, stored);
      } catch (err) {
        problem = (err as Error).message;
        ({ runtime } = await ModelRuntime.create(model, this.runtimeEnv));
      }
    }
    return { runtime, problem };
  }

  /** Keeps a stored state that could not be rebuilt under a recovery key, before the model's state is reset. */
  async #keepForRecovery(stored: LoadedModel, problem: string): Promise<void> {
    // Never delete data: what was stored is kept under a recovery key before the reset.
    const id = stored.spec.id;
    await this.store.keepForRecovery({
      modelId: id,
      detectedAt: formatInstant(this.platform.clock.now()),
      reason: problem,
      spec: stored.spec,
      base: stored.base,
      baseAt: stored.baseAt ?? null,
      log: stored.log,
      ...stored.auditSequence !== undefined ? { auditSequence: stored.auditSequence } : {},
    });
    this.#observer.warn?.(
      `model '${id}': state could not be reconstructed (${problem}); loaded spec-only with state reset. ` +
        `RECOVERY NEEDED: the stored state and log are kept; export them with ` +
        `GET /admin/recovery/${encodeURIComponent(id)} (console: get-recovery)`,
    );
  }

  // ------------------------------------------------------------ shared stores

  /** What another process sharing the store did: refresh the model (or load it), or run handed-over jobs. */
  #onStoreChange(change: StoreChange): void {
    if (change.type === "model") {
      const id = change.modelId;
      // A notice while the model is adopted may tell of a change the adoption read before: caught up after it.
      this.#refreshing(() =>
        this.#slots.has(id) || this.#adopting.has(id) ? this.#sync(id) : this.#adopt(id)
      );
      return;
    }
    for (const job of change.jobs) {
      this.#refreshing(async () => {
        const slot = await this.#sync(job.modelId);
        if (!slot) return;
        // The service's copy may predate an outbox change that moved no revision: begin runs the store's.
        const known = slot.jobs.get(job.id);
        if (known) this.#dispatcher?.enqueue([known]);
      });
    }
  }

  /** Brings model `id` up to the store, adopted first when it is new here; its slot, when it has one then. */
  async #sync(id: string): Promise<Slot | undefined> {
    if (!this.#slots.has(id)) await this.#adopt(id);
    const slot = this.#slots.get(id);
    if (slot) await slot.queue.run(() => this.#catchUp(slot), false);
    return slot;
  }

  /** Loads a model another process created (once, however many notices arrive). */
  #adopt(id: string): Promise<void> {
    if (this.#reserved.has(id)) return this.#missedWhileReserved.add(id), Promise.resolve();
    let adopting = this.#adopting.get(id);
    if (!adopting) {
      adopting = (async () => {
        const refresh = await this.#coordination.refresh(id, { full: true });
        // Another process deleted a model that did not load here: subscribers hear it as of a loaded one.
        if (refresh.kind === "deleted") this.#forgetUnloaded(id);
        if (this.#reserved.has(id)) this.#missedWhileReserved.add(id);
        if (refresh.kind !== "replaced" || this.#slots.has(id) || this.#reserved.has(id)) return;
        const slot = await this.#build(refresh.model);
        if (!slot || this.#slots.has(id)) return;
        this.#slots.set(id, slot);
        await this.#armWatches(slot);
        this.#emit({ type: "created", modelId: id });
      })().finally(() => this.#adopting.delete(id));
      this.#adopting.set(id, adopting);
    }
    return adopting;
  }

  /**
   * Brings a cached model up to the store, in its queue turn: replays other
   * processes' commits (subscribers get their frames), or rebuilds it after
   * their evolution or restore, or drops it after their deletion.
   */
  async #catchUp(slot: Slot, full = false): Promise<void> {
    if (slot.deleted) return;
    const id = slot.runtime.model.id;
    const refresh = await this.#coordination.refresh(id, { full });
    if (refresh.kind === "deleted") this.#drop(slot);
    else if (refresh.kind === "commits") {
      try {
        await this.#replayCommits(slot, refresh);
      } catch (err) {
        this.#observer.warn?.(`model '${id}': replaying another process's commit failed (${err}); reloading`);
        await this.#catchUp(slot, true);
      }
    } else if (refresh.kind === "replaced") {
      const rebuilt = await this.#build(refresh.model);
      if (!rebuilt) return this.#drop(slot, this.#unloaded.get(id));
      const previous = slot.runtime.model.spec;
      const jobs = this.#jobsWithKept(slot, rebuilt.jobs.values());
      Object.assign(slot, { runtime: rebuilt.runtime, auditHead: rebuilt.auditHead, jobs });
      const version = rebuilt.runtime.model.version;
      // Its spec the same, its state was written anew (a restore, a compaction past this copy): read again.
      this.#emit(
        JSON.stringify(previous) !== JSON.stringify(rebuilt.runtime.model.spec)
          ? { type: "spec-evolved", modelId: id, version }
          : { type: "restored", modelId: id },
      );
      this.#composition.disarm(id);
      await this.#armWatches(slot);
    }
  }

  async #replayCommits(slot: Slot, refresh: StoredCommits): Promise<void> {
    const id = slot.runtime.model.id;
    for (const entry of refresh.entries) {
      const outcome = await evaluateLogged(slot.runtime, entry);
      if (!outcome) continue;
      slot.runtime.commit(outcome, entry.at);
      this.#emit({ type: "mutation", modelId: id, source: entry.source, result: outcome.result });
    }
    slot.auditHead = refresh.auditHead ?? { sequence: -1, hash: GENESIS_HASH };
    slot.jobs = this.#jobsWithKept(slot, refresh.jobs);
  }

  /** The model's jobs as stored, each with what this process keeps in memory of it ({@link withKept}). */
  #jobsWithKept(slot: Slot, stored: Iterable<EffectJob>): Map<string, EffectJob> {
    return new Map(Array.from(stored, (job) => [job.id, withKept(job, slot.jobs.get(job.id))]));
  }

  /** Forgets a deleted model (or one that stopped loading, `unloaded`): its effects end, subscribers hear of it. */
  #drop(slot: Slot, unloaded?: UnloadedModel): void {
    const id = slot.runtime.model.id;
    // Its outstanding effects end with it: timers cleared, attempts' results dropped.
    this.#dispatcher?.cancelModel(id);
    this.#composition.forget(id);
    slot.jobs.clear();
    slot.deleted = true;
    this.#slots.delete(id);
    if (unloaded) unloaded.gone = true;
    this.#emit({ type: "deleted", modelId: id, ...unloaded && { unloaded: true } });
  }

  /** Forgets a stored model that did not load, deleted: subscribers hear of it, unless they did when it stopped loading. */
  #forgetUnloaded(id: string): void {
    const unloaded = this.#unloaded.get(id);
    this.#unloaded.delete(id);
    if (unloaded && !unloaded.gone) this.#emit({ type: "deleted", modelId: id });
  }

  #newSlot(runtime: ModelRuntime, lastAudit: AuditRecord | null, jobs: readonly EffectJob[] = []): Slot {
    return {
      runtime,
      queue: new SerialQueue(this.config.mutationQueueSize, `model '${runtime.model.id}'`),
      deleted: false,
      auditHead: lastAudit
        ? { sequence: lastAudit.sequence, hash: lastAudit.hash }
        : { sequence: -1, hash: GENESIS_HASH },
      jobs: new Map(jobs.map((job) => [job.id, job])),
    };
  }

  #slot(id: string): Slot {
    if (typeof id !== "string" || id === "") throw badRequest("a model id is required");
    const slot = this.#slots.get(id);
    if (slot && !slot.deleted) return slot;
    const unloaded = this.#unloaded.get(id);
    throw unloaded ? notLoaded(id, unloaded.findings) : notFound(`Model '${id}' not found`);
  }

  /** The stored model `id` names when it did not load (and no live model took its id since). */
  #unloadedOnly(id: string): UnloadedModel | undefined {
    return this.#slots.has(id) ? undefined : this.#unloaded.get(id);
  }

  /**
   * Runs `task` on a stored model that did not load (a repair, a deletion),
   * one at a time: its id is reserved meanwhile, so a create or a second
   * repair is refused (409) and the store never sees two of them at once.
   */
  async #onUnloaded<T>(id: string, task: () => Promise<T>): Promise<T> {
    if (this.#reserved.has(id)) throw conflict(`Model '${id}' is being repaired or deleted`);
    this.#reserved.add(id);
    try {
      return await task();
    } finally {
      this.#release(id);
    }
  }

  /**
   * Runs `task` in the model's queue, after every earlier operation on it.
   * When a shared store refuses its write (another process changed the model
   * first), the model is brought up to date and `task` runs again, up to
   * {@link STALE_RETRIES} times per queued operation (then 429). A task writes
   * to the store before it changes anything in memory, so running it again is safe.
   * A model this process does not have is looked up in a shared store first ({@link #withSlot}).
   */
  #exclusive<T>(id: string, task: (slot: Slot) => Promise<T>, counted = false): Promise<T> {
    return this.#withSlot(id, (slot) => {
      // A task between writes ends their run: the writes after it wait for it.
      slot.openRun = undefined;
      return slot.queue.run(async () => {
        for (let attempt = 1;; attempt++) {
          if (slot.deleted) throw notFound(`Model '${id}' not found`);
          try {
            return await task(slot);
          } catch (err) {
            if (!(err instanceof StaleModelError)) throw err;
            if (attempt >= STALE_RETRIES * this.config.mutationQueueSize) {
              throw tooMany(
                `Model '${id}' is being written by other instances faster than this one can commit`,
              );
            }
            await this.#catchUp(slot);
          }
        }
      }, counted);
    });
  }

  /**
   * `use` of model `id`'s slot, called at once when this process has the
   * model (so operations queue in the order they came). One it does not have
   * is looked up in a shared store first, once: another process may have
   * created it a moment ago, its notice still on the way (no sticky
   * sessions). Every read and write naming a model finds it here.
   */
  #withSlot<T>(id: string, use: (slot: Slot) => T | Promise<T>, looked = false): Promise<T> {
    let slot: Slot;
    try {
      slot = this.#slot(id);
    } catch (err) {
      return this.store.coordination && !looked && (err as ServiceError).kind === "not_found"
        ? this.#adopt(id).then(() => this.#withSlot(id, use, true))
        : Promise.reject(err);
    }
    try {
      return Promise.resolve(use(slot));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  // ---------------------------------------------------------------- registry

  listModels(): Promise<string[]> {
    return Promise.resolve([...this.#slots.keys()].sort());
  }

  /** Number of registered models. */
  get modelCount(): number {
    return this.#slots.size;
  }

  /**
   * Creates the model `input` specifies; with `snapshot`, in its state (restored as {@link restore} does,
   * no effect fired) from its first store write on: no other writer sees it before (a replacement's).
   */
  async createModel(input: unknown, snapshot?: unknown): Promise<ModelInfo> {
    checkSpecSize(this.config, input);
    const restoring = snapshot ? { snapshot, baseBytes: snapshotBytes(this.config, snapshot) } : undefined;
    // The compile yields to the event loop: a free id is reserved before it, so a create of the same
    // id meanwhile is refused (409 after its own compile, as after this one) and nothing sees it half made.
    const claimed = isObject(input) && typeof input.id === "string" && this.#free(input.id) ? input.id : null;
    if (claimed !== null) this.#reserved.add(claimed);
    try {
      return await this.#create(input, claimed, restoring);
    } finally {
      if (claimed !== null) this.#release(claimed);
    }
  }

  /**
   * Ends a reservation. A model another process made under the id meanwhile
   * was not loaded then (its notice came while the id was taken here): when
   * the reservation ends without a model of ours, it is looked up now.
   */
  #release(id: string): void {
    this.#reserved.delete(id);
    if (this.#missedWhileReserved.delete(id) && !this.#slots.has(id)) this.#refreshing(() => this.#adopt(id));
  }

  /**
   * A refresh nobody awaits: after a failure it runs again, the wait growing
   * to a second, until it gets through (the model is then as stored, or gone)
   * or the service closes. Its first failure is logged.
   */
  #refreshing(refresh: () => Promise<unknown>): void {
    this.#refreshRetries.run(
      refresh,
      (err) =>
        this.#observer.warn?.(
          `refreshing from the store failed: ${err.message}; trying again until it gets through`,
        ),
    );
  }

  /** Whether no model, live, being made or removed, or stored but not loaded, holds `id`. */
  #free(id: string): boolean {
    return !this.#slots.has(id) && !this.#reserved.has(id) && !this.#unloaded.has(id);
  }

  /**
   * Creates the model `input` specifies; `claimed`: the id {@link createModel} reserved for it; `restoring`:
   * the snapshot it takes the state of (checked at the door, {@link snapshotBytes}).
   */
  async #create(input: unknown, claimed: string | null, restoring?: Restoring): Promise<ModelInfo> {
    // A branch is flattened over its template first, on every surface.
    const warnings: Finding[] = [];
    const spec = await this.#composition.prepare(input, warnings);
    const report = await this.#compile(spec);
    warnings.push(...report.warnings);
    if (!report.model) throw specInvalid(report.errors, warnings);
    const model = report.model;
    const id = model.id;
    if (id !== claimed) {
      if (this.#slots.has(id) || this.#reserved.has(id)) throw taken(id);
      const unloaded = this.#unloaded.get(id);
      // Creating it would discard its stored state and audit trail.
      if (unloaded) throw notLoaded(id, unloaded.findings);
    }
    if (this.#slots.size + this.#reserved.size - Number(id === claimed) >= this.config.maxModels) {
      throw tooMany(`Model limit reached (svc.max-models = ${this.config.maxModels})`);
    }
    this.#reserved.add(id);
    try {
      await this.#composition.linked(model.spec, async () => {
        const at = this.platform.clock.now();
        const { runtime, outcome } = await ModelRuntime.create(
          model,
          this.runtimeEnv,
          undefined,
          at,
          restoring ? new Set() : undefined,
        );
        const restored = restoring && await this.#restored(runtime, restoring);
        checkStateBytes(this.config, runtime.stateBytes, id);
        const jobs = jobsOf(id, outcome.effectRequests, at);
        try {
          await this.store.save(model.spec, toPersisted(runtime.state), {
            created: true,
            jobs: { put: jobs },
          });
        } catch (err) {
          if (!(err instanceof StaleModelError)) throw err;
          // Another process created it first.
          this.#reserved.delete(id);
          this.#missedWhileReserved.delete(id);
          await this.#adopt(id);
          throw taken(id);
        }
        restored?.stands();
        const slot = this.#newSlot(runtime, null);
        this.#slots.set(id, slot);
        this.#fire(slot, outcome.effectRequests, jobs);
      });
    } finally {
      this.#release(id);
    }
    this.#observer.modelCreated?.(id);
    this.#emit({ type: "created", modelId: id });
    // Status documents of work its snapshot's jobs (gone with them) were doing, as after a restore.
    if (restoring) await this.#exclusive(id, (slot) => this.#rearm(slot));
    return warned(infoOf(model), warnings);
  }

  getInfo(id: string): Promise<ModelInfo> {
    return this.#withSlot(id, (slot) => infoOf(slot.runtime.model));
  }

  /** The live spec, or the stored spec of a model that did not load (what a repair evolves). */
  getSpec(id: string): Promise<ModelSpec> {
    const unloaded = this.#unloadedOnly(id);
    if (unloaded) return Promise.resolve(cloneJson(unloaded.stored.spec));
    return this.#withSlot(id, (slot) => cloneJson(slot.runtime.model.spec));
  }

  listUnloadedModels(): Promise<UnloadedSummary[]> {
    return Promise.resolve(
      [...this.#unloaded].map(([id, { findings }]) => ({ id, errors: cloneJson(findings) })).sort((a, b) =>
        a.id < b.id ? -1 : 1
      ),
    );
  }

  getLibrary(id: string): Promise<LibraryDescription> {
    return this.#withSlot(id, (slot) => cloneJson(describeLibrary(slot.runtime.model)));
  }

  /**
   * The compiled model of `id` (for tools that run its embedded tests or time
   * its pipeline), found as every operation finds a model (a shared store's,
   * created through another process a moment ago, too).
   */
  compiledModel(id: string): Promise<CompiledModel> {
    return this.#withSlot(id, (slot) => slot.runtime.model);
  }

  /**
   * Deletes model `id`. `keep`, when given, is handed the model's snapshot first, in the same turn of the
   * model, and again each time another process changed the model before the deletion (it is then caught up):
   * the last snapshot kept is the state deleted, none of another process's commits missing (a replacement's).
   * A stored model that did not load has no snapshot: with `keep`, its deletion is refused (409) as its snapshot is.
   */
  deleteModel(id: string, keep?: (snapshot: Snapshot) => Promise<void>): Promise<void> {
    const unloaded = !keep && this.#unloadedOnly(id);
    if (unloaded) {
      // A model stored but not loaded: its stored data goes, its id is free again, subscribers hear it.
      return this.#onUnloaded(id, async () => {
        await this.store.delete(id);
        this.#forgetUnloaded(id);
      });
    }
    return this.#exclusive(id, async (slot) => {
      await keep?.(await slot.runtime.snapshot());
      await this.store.delete(id);
      this.#drop(slot);
    });
  }

  // ------------------------------------------------------------------ writes

  mutate(id: string, mutations: Record<string, Json>, options: WriteOptions = {}): Promise<WriteResult> {
    return this.#write(id, "client", mutations, options, () => {
      if (!isObject(mutations)) {
        throw badRequest("mutations must be a JSON object of canonical address to value");
      }
      checkMutationValues(this.config, mutations);
      // The audit record keeps the addresses written (`$['a']` as `$.a`), as `mutatedPaths` names them.
      return canonicalWrites(mutations);
    }, (request) => (rt, at, after) => rt.evaluateMutation(request, "client", at, { after }));
  }

  patch(id: string, ops: PatchOperation[], options: WriteOptions = {}): Promise<WriteResult> {
    return this.#write(id, "patch", ops, options, () => {
      if (!Array.isArray(ops)) throw badRequest("a JSON Patch must be an array of operations");
      checkPatchValues(this.config, ops);
    }, (request) => (rt, at, after) => rt.evaluatePatch(request, at, { after }));
  }

  /** Applies an executor's result as a logged `foldback` mutation. */
  foldback(id: string, mutations: Record<string, Json>): Promise<MutationResult> {
    return this.#write(
      id,
      "foldback",
      mutations,
      {},
      () => checkMutationValues(this.config, mutations),
      foldbackOf,
    );
  }

  /**
   * Writes `input` once `check` passed (its refusal a rejection, as the write's are): a copy of it, or what
   * `check` returns in its place (a copy it made, so not copied again), which the caller changing its own
   * afterwards leaves alone, evaluated as `evaluation` says.
   */
  #write<T>(
    id: string,
    source: LogEntry["source"],
    input: T,
    { viewId }: WriteOptions,
    check: () => T | void,
    evaluation: (request: T) => Evaluation,
  ): Promise<WriteResult> {
    const observe = this.#observer.mutationFinished;
    const started = observe ? this.platform.clock.now() : 0;
    let written: Promise<WriteResult>;
    try {
      const copy = check() ?? cloneJson(input);
      const request = copy as Json;
      const evaluate = evaluation(copy);
      // Batches only where a write fails for nothing but itself or the store: one writer, no stale retries.
      written = this.#writeBatcher && this.store.commitMany && !this.store.coordination
        ? this.#queueWrite(id, { source, request, evaluate, viewId })
        : this.#exclusive(id, async (slot) => {
          // An unknown view fails the write before anything is applied.
          if (viewId !== undefined) checkViewId(slot.runtime.model, viewId);
          // Returned as it is: a plain answer (no view delta) settles the task without a turn of its own.
          return this.#answer(slot, await this.#commit(slot, source, request, evaluate), viewId);
        }, true);
    } catch (err) {
      // A write refused at the door (a malformed address, a value past a limit) is an outcome too.
      written = Promise.reject(err);
    }
    // Without an observer, no reaction of ours stands between the commit and the caller.
    if (!observe) return written;
    const finished = (outcome: MutationOutcome) => observe(id, outcome, this.platform.clock.now() - started);
    return written.then(
      (result) => {
        finished(result.flaggedConstraints.length ? "flagged" : "success");
        return result;
      },
      (err) => {
        const kind = err instanceof ServiceError ? err.kind : "internal";
        if (kind !== "not_found" && kind !== "too_many") {
          finished(
            kind === "constraint_violation"
              ? "rollback"
              : kind === "schema_violation"
              ? "schema_violation"
              : "error",
          );
        }
        throw err;
      },
    );
  }

  /**
   * Evaluates one write at this instant and commits it, in the caller's queue
   * turn: log entry, audit record and outbox changes (the jobs it fires, and
   * `settled`, the job whose settlement it is) in one durable write, then the
   * runtime, then subscribers and executors. `null` when nothing was written.
   */
  async #commit(
    slot: Slot,
    source: LogEntry["source"],
    request: Json,
    evaluate: Evaluation,
    outbox: { settled?: EffectJob; updated?: EffectJob } = {},
  ): Promise<MutationResult | null> {
    const { settled, updated } = outbox;
    const id = slot.runtime.model.id;
    const at = this.platform.clock.now();
    const outcome = await evaluate(slot.runtime, at);
    if (!outcome) return null;
    const sealed = this.#auditRecord(slot, source, request, outcome, at);
    const audit = sealed instanceof Promise ? await sealed : sealed;
    // Taken from history as this commit finds it: a store may fold its log later, after more commits, and
    // the checkpoint must still be this commit's. Taking it now reads one entry; no copy of history is kept.
    const point = checkpointOf(slot.runtime.historyTail, outcome.state, at, this.config.historyMaxEntries);
    const jobs = jobsOf(id, outcome.effectRequests, at);
    await this.store.commit(
      id,
      { at, source, request },
      {
        current: () => toPersisted(outcome.state),
        checkpoint: () => point,
      },
      audit,
      { put: jobs, update: updated ? [updated] : [], remove: settled ? [settled.id] : [] },
    );
    if (settled) slot.jobs.delete(settled.id);
    return this.#applyDurable(slot, source, outcome, audit, at, jobs);
  }

  /** Makes a durable write the runtime's state, then tells subscribers and executors. */
  #applyDurable(
    slot: Slot,
    source: LogEntry["source"],
    outcome: CycleOutcome,
    audit: AuditRecord,
    at: number,
    jobs: EffectJob[],
  ): MutationResult {
    const id = slot.runtime.model.id;
    slot.runtime.commit(outcome, at);
    slot.auditHead = { sequence: audit.sequence, hash: audit.hash };
    this.#observer.auditRecorded?.(id, source);
    const result = outcome.result;
    this.#fire(slot, outcome.effectRequests, jobs, result.dispatchedEffects.length);
    this.#emit({ type: "mutation", modelId: id, source, result });
    return result;
  }

  /**
   * Queues a write of a store that commits batches (`commitMany`): the write
   * joins the run of writes queued back to back, and the first of them to get
   * its turn takes the whole run to {@link ServiceOptions.writeBatcher}; the
   * others' turns then only answer.
   */
  #queueWrite(id: string, write: Omit<QueuedWrite, "taken" | "answer">): Promise<WriteResult> {
    let slot: Slot;
    try {
      slot = this.#slot(id);
      // Refused before it joins a run, so no batch takes a write whose caller heard 429.
      slot.queue.checkRoom();
    } catch (err) {
      return Promise.reject(err);
    }
    const queued: QueuedWrite = { ...write, taken: false, answer: Promise.withResolvers() };
    // Its caller hears the answer through its own turn, which may come after a batch settled it.
    queued.answer.promise.catch(() => {});
    const run = slot.openRun ??= [];
    run.push(queued);
    return slot.queue.run(async () => {
      if (!queued.taken) {
        const batch = run.splice(0);
        for (const taken of batch) taken.taken = true;
        try {
          await this.#writeBatcher!(this.#batchHost(slot), batch);
        } catch (err) {
          // Whatever went wrong, no caller of the batch waits forever (a settled answer stays as it is).
          for (const taken of batch) taken.answer.reject(err);
        }
      }
      return queued.answer.promise;
    }, true);
  }

  /** What {@link ServiceOptions.writeBatcher} works with: one model's slot, through the service. */
  #batchHost(slot: Slot): BatchHost {
    const id = slot.runtime.model.id;
    return {
      modelId: id,
      runtime: () => slot.runtime,
      auditHead: () => slot.auditHead,
      deleted: () => slot.deleted,
      now: () => this.platform.clock.now(),
      checkView: (viewId) => checkViewId(slot.runtime.model, viewId),
      seal: (write, outcome, at, head) =>
        this.#auditRecord(slot, write.source, write.request, outcome, at, head),
      jobsOf: (outcome, at) => jobsOf(id, outcome.effectRequests, at),
      historyMaxEntries: this.config.historyMaxEntries,
      store: this.store,
      apply: (write, outcome, audit, at, jobs) =>
        void this.#applyDurable(slot, write.source, outcome, audit, at, jobs),
      answer: (write, result) => this.#answer(slot, result, write.viewId),
    };
  }

  /**
   * A write's answer to its caller: a copy of its result (`null`: nothing written), with the view's delta
   * (only that one is computed asynchronously).
   */
  #answer(
    slot: Slot,
    result: MutationResult | null,
    viewId: string | undefined,
  ): WriteResult | Promise<WriteResult> {
    const copy = result ? copyResult(result) : emptyResult();
    return viewId === undefined ? copy : this.#withViewDelta(slot, copy, viewId);
  }

  /** Hands the jobs a commit fired to the outbox and the executors. */
  #fire(slot: Slot, requests: EffectRequest[], jobs: EffectJob[], callerEffects = 0): void {
    const id = slot.runtime.model.id;
    if (callerEffects + jobs.length) this.#observer.effectsDispatched?.(id, callerEffects + jobs.length);
    if (!jobs.length) return;
    for (const job of jobs) slot.jobs.set(job.id, job);
    this.#observer.effectsRequested?.(id, requests);
    this.#dispatcher?.enqueue(jobs);
  }

  // ------------------------------------------------------------------ effects

  /** What the dispatcher calls back: attempts counted, outcomes settled, retries kept. */
  #dispatchHost(): DispatchHost {
    const policyOf = (job: EffectJob, slot: Slot) =>
      effectNode(slot.runtime.model, job.effectId)?.effect.policy ?? DEFAULT_POLICY;
    // This process's claim of a job renewed until it is due: a shared store's other processes leave it until
    // then. The job as stored; null when another holds it.
    const holdUntilDue = (job: EffectJob) =>
      this.#coordination.claim(job, job.dueAt - this.platform.clock.now());
    // A job kept for a later attempt: here first, so when the store refuses it, it still runs while the
    // service does, and a claim the store still takes keeps the others sharing it off until then.
    const keep = async (job: EffectJob, why?: string) => {
      await onModel(job, async (slot) => {
        if (!slot.jobs.has(job.id)) return;
        if (why !== undefined && await this.#keepRetrying(slot, job, why)) return;
        slot.jobs.set(job.id, job);
        await this.store.updateJobs(job.modelId, { update: [job] }).catch(async (err) => {
          await holdUntilDue(job).catch(() => {});
          throw err;
        });
      });
    };
    // A job of a deleted model is gone: its calls end quietly.
    const onModel = async <T>(job: EffectJob, task: (slot: Slot) => Promise<T>): Promise<T | null> => {
      try {
        return await this.#exclusive(job.modelId, task);
      } catch (err) {
        if (err instanceof ServiceError && err.kind === "not_found") return null;
        throw err;
      }
    };
    return {
      begin: (due) =>
        onModel(due, (slot) => {
          const known = slot.jobs.get(due.id);
          return known ? this.#begin(slot, known, policyOf(due, slot)) : Promise.resolve(null);
        }),
      // The store failing (an outage), other instances' writes outpacing this one's (429), or anything else
      // begin meets: the job waits, not sent yet (its attempt count stays), in this memory, so a notice that
      // re-arms it (a hand-over) keeps the wait, and in the store with its new due time where the store takes
      // it (a copy elsewhere, another process's or this one's after a restart, waits for it too; null:
      // another holds it), else as this process's claim renewed until the wait ends, so no other process
      // takes it earlier. A store that takes neither (an outage) leaves the others to take it once the
      // lease it has runs out, as from a process that died; this one's next attempt claims it first, so the
      // two never run it at once.
      putOff: async (due, putOffs) => {
        const slot = this.#slots.get(due.modelId);
        const known = slot?.jobs.get(due.id);
        if (!slot || !known) return null;
        const wait = {
          ...known,
          dueAt: this.platform.clock.now() + backoffDelay(policyOf(due, slot), known.attempt + putOffs),
        };
        slot.jobs.set(known.id, wait);
        // Kept, its lease runs from its new due time: the claim only tells whether it is still this process's.
        return (await keep(wait).then(() => this.#coordination.claim(wait, 0)).catch(() => wait)) && wait;
      },
      retryLater: keep,
      settle: async (job, outcome) => {
        await onModel(job, (slot) => this.#settle(slot, job, outcome));
      },
    };
  }

  /** Begins an attempt of `known` in its model's queue turn ({@link DispatchHost.begin}); a store failure throws. */
  async #begin(slot: Slot, known: EffectJob, policy: EffectPolicy): Promise<AttemptStart> {
    // The store's copy, as a shared store's other processes left it: their attempts counted, their
    // retry's due time; null while another runs it, or once one settled it.
    const claimed = await this.#coordination.claim(known, policy.timeoutMs);
    if (!claimed) return null;
    const job = withKept(claimed, known);
    if (job.dueAt > this.platform.clock.now()) {
      slot.jobs.set(job.id, job);
      return { wait: job };
    }
    // A job that carries its outcome is settled again, no attempt begun (settling checks it still stands).
    if (job.outcome) return { run: job, policy };
    // A job cancelled or superseded meanwhile is settled without an attempt (and never writes its
    // in_flight phase over a status document that is no longer its own).
    if (await this.#settle(slot, job, null)) return null;
    const now = this.platform.clock.now();
    const attempt = { ...job, attempt: job.attempt + 1 };
    const status = statusAddress(job);
    const writes = status ? { [status]: statusDocument("in_flight", job.key, now) } : null;
    // The attempt is counted with the in_flight phase, or alone (no status document).
    const inFlight = { ...attempt, statusAt: now };
    let refusal = "";
    const written = writes &&
      await this.#commitFoldback(slot, writes, { updated: inFlight }).catch((err) => {
        if (!isRefusal(err)) throw err;
        refusal = err.message;
        return null;
      });
    // A job the model refuses to mark in flight is not sent (no side effect behind the model's back): it
    // fails as a refused fold-back does, a failure that holds its key back.
    if (refusal) {
      await this.#settleRefused(slot, job, now, `in_flight refused: ${refusal}`);
      return null;
    }
    const counted = written ? inFlight : attempt;
    if (!written) {
      await this.store.updateJobs(job.modelId, { update: [counted] });
      // Counted alone, nothing refuses a count another process made moot by taking the job meanwhile (this
      // one paused past its lease; a shared store then drops the count): claimed again, so it is not sent
      // behind the holder's back, as an in_flight commit refused as stale is not.
      if (!await this.#coordination.claim(counted, policy.timeoutMs)) return null;
    }
    slot.jobs.set(job.id, counted);
    return { run: counted, policy };
  }

  /**
   * Keeps a job for its retry in one commit with its status document saying why (`in_flight`, `error` the
   * failed attempt and when the next is due), so a crash cannot leave them apart. True when done: kept so,
   * or settled meanwhile (cancelled or superseded: no document of another job is written over); false when
   * the job keeps no status document or the commit failed (the job is then kept alone).
   */
  async #keepRetrying(slot: Slot, job: EffectJob, why: string): Promise<boolean> {
    const status = statusAddress(job);
    if (!status) return false;
    if (await this.#settle(slot, job, null)) return true;
    const now = this.platform.clock.now();
    const waiting = { ...job, statusAt: now };
    const writes = { [status]: statusDocument("in_flight", job.key, now, why) };
    if (!await this.#commitFoldback(slot, writes, { updated: waiting }).catch(() => null)) return false;
    slot.jobs.set(job.id, waiting);
    return true;
  }

  /**
   * Settles a job in the model's queue turn (foldback.ts decides what is
   * written); `outcome` null only re-checks it (before an attempt, after an
   * evolution) and leaves a job that still stands alone. True when the job
   * has left the outbox. A settlement the model refuses (a schema violation,
   * a rollback) records the refusal as the job's failure; when that is
   * refused too, or there is no status document to record it in, the job
   * leaves the outbox alone, with a log line, rather than run again.
   */
  async #settle(slot: Slot, job: EffectJob, outcome: ExecutorOutcome | null): Promise<boolean> {
    if (!slot.jobs.has(job.id)) return true;
    const { runtime } = slot;
    const ctx = {
      model: runtime.model,
      doc: await runtime.readState(),
      at: this.platform.clock.now(),
      compiler: this.compiler,
      policy: this.config.inheritedEffects,
    };
    let phase: Settlement["phase"];
    try {
      // A response.set expression that fails refuses the fold-back like the model refusing it.
      const settled = await settlement(job, outcome, ctx);
      if (!settled) return false;
      phase = settled.phase;
      await this.#settleWith(slot, job, settled.writes);
    } catch (err) {
      // The store failing is no refusal: the dispatcher keeps the job for a later attempt.
      if (!isRefusal(err)) throw err;
      phase = "failed";
      await this.#settleRefused(slot, job, ctx.at, `fold-back refused: ${err.message}`);
    }
    this.#observer.effectSettled?.(job.modelId, job.effectId, phase);
    if (phase === "applied" && job.work.type === "link" && job.work.watch) {
      const node = effectNode(slot.runtime.model, job.effectId);
      if (node) await this.#composition.arm(job.modelId, node);
    }
    return true;
  }

  /**
   * Records a refused settlement as the job's failure; when the model refuses
   * that too, or the effect keeps no status, removes the job alone (its
   * outcome is known: sending it again would only be refused again).
   */
  async #settleRefused(slot: Slot, job: EffectJob, at: number, error: string): Promise<void> {
    const unrecorded = await recordFailure(
      job.statusPath,
      job.key,
      at,
      error,
      (writes) => this.#settleWith(slot, job, writes),
    );
    if (!unrecorded) return;
    this.#observer.warn?.(
      `effect '${job.effectId}' of model '${job.modelId}': ${error}; failure not recorded (${unrecorded}), job removed`,
    );
    await this.#settleWith(slot, job, {});
  }

  /** Commits a settlement's writes with the job's removal, or removes it alone when nothing is written. */
  async #settleWith(slot: Slot, job: EffectJob, writes: Record<string, Json>): Promise<void> {
    if (Object.keys(writes).length && await this.#commitFoldback(slot, writes, { settled: job })) {
      return;
    }
    await this.store.updateJobs(job.modelId, { remove: [job.id] });
    slot.jobs.delete(job.id);
  }

  /**
   * Commits writes the effect machinery makes (phases, fold-backs, watched
   * reads), held at the door like any caller's: an executor's value deeper
   * than `svc.limits.max-depth` is refused, not stored.
   */
  async #commitFoldback(
    slot: Slot,
    writes: Record<string, Json>,
    outbox: { settled?: EffectJob; updated?: EffectJob } = {},
  ): Promise<MutationResult | null> {
    checkMutationValues(this.config, writes);
    return await this.#commit(slot, "foldback", writes, foldbackOf(writes), outbox);
  }

  /**
   * Re-arms the effects whose status documents hold them back with nothing to
   * release them ({@link stuckStatuses}), after a restore (`replaced`: the
   * state it replaced) or a load. The restored or loaded state stands: a
   * write the model or the store refuses is told, that document left as it is.
   * One commit each, so a refused one holds back no other, and each found
   * again after the last (whose cycle may have fired that effect already).
   */
  async #rearm(slot: Slot, replaced?: Json): Promise<void> {
    const tried = new Set<string>();
    for (;;) {
      const { model, state } = slot.runtime;
      const writes = stuckStatuses(model, state.doc, slot.jobs.values(), this.platform.clock.now(), replaced);
      const address = Object.keys(writes).find((a) => !tried.has(a));
      if (address === undefined) return;
      tried.add(address);
      await this.#commitFoldback(slot, { [address]: writes[address] }).catch((err) =>
        this.#observer.warn?.(`model '${model.id}': status document ${address} not re-armed: ${err.message}`)
      );
    }
  }

  /** The result with `viewDelta` of view `viewId` (computed in the caller's queue turn). */
  async #withViewDelta(slot: Slot, result: MutationResult, viewId: string): Promise<WriteResult> {
    const { runtime } = slot;
    const delta = await evaluateViewDelta(runtime.model, await viewStateOf(runtime), viewId, result);
    return { ...result, viewDelta: cloneJson(delta) };
  }

  /** The audit record of a write, chained to `head` (the model's newest record, or a batch's one before it). */
  #auditRecord(
    slot: Slot,
    source: LogEntry["source"],
    mutations: Json,
    outcome: CycleOutcome,
    at: number,
    head: Slot["auditHead"] = slot.auditHead,
  ): AuditRecord | Promise<AuditRecord> {
    const result = outcome.result;
    return sealRecord(
      {
        modelId: slot.runtime.model.id,
        sequence: head.sequence + 1,
        timestamp: formatInstant(at),
        modelVersion: slot.runtime.model.version,
        source,
        mutations,
        derivedUpdated: result.derivedUpdated,
        flaggedConstraints: result.flaggedConstraints.map((f) => f.constraintId),
        dispatchedEffects: result.dispatchedEffects.map((d) => d.effectId),
        traces: result.traces,
      },
      head.hash,
      this.platform.hasher,
      this.#auditSigner,
    );
  }

  restore(id: string, snapshot: unknown): Promise<void> {
    let baseBytes: number;
    try {
      baseBytes = snapshotBytes(this.config, snapshot);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.#exclusive(id, async (slot) => {
      const previous = slot.runtime.state;
      const { state, stands } = await this.#restored(slot.runtime, { snapshot, baseBytes });
      try {
        await this.store.save(slot.runtime.model.spec, toPersisted(state));
      } catch (err) {
        slot.runtime.replaceState(previous, { clearHistory: false });
        throw err;
      }
      stands();
      this.#emit({ type: "restored", modelId: id });
      await this.#rearm(slot, previous.doc);
    }, true);
  }

  /**
   * Restores a snapshot into `runtime` (a restore's, a creation's), refused (413) before anything is
   * replaced when the state would pass max-state-bytes. `stands` tells the observer which constraints the
   * restored state breaks (none refuses it), called once that state is stored.
   */
  async #restored(
    runtime: ModelRuntime,
    { snapshot, baseBytes }: Restoring,
  ): Promise<{ state: ModelState; stands: () => void }> {
    const id = runtime.model.id;
    checkStateBytes(this.config, baseBytes, id);
    const { state, broken } = await runtime.restore(
      snapshot,
      (growth) => checkStateBytes(this.config, baseBytes + growth, id),
    );
    const stands = () => {
      if (broken.length) {
        this.#observer.warn?.(
          `model '${id}': the restored state breaks ${broken.map((c) => c.constraintId)}`,
        );
      }
    };
    return { state, stands };
  }

  /**
   * Evolves a model's spec, all or nothing: shape check (400), `expectedVersion`
   * (409), the evolved spec compiled like a new one (422), state carried forward
   * with backfill and the stranding guard (422), every eager derivation and meta
   * recomputed, then spec and state persisted before the new runtime is installed.
   * History is cleared (its states belong to the previous spec), traces are kept.
   * Effects the evolution added or changed are requested when their trigger holds;
   * unchanged ones do not re-fire. A stored model that did not load is
   * repaired this way (see {@link #repair}).
   */
  evolveSpec(id: string, evolution: unknown): Promise<Evolved> {
    return this.#evolveSpec(id, evolution);
  }

  /** {@link evolveSpec}, refused (409) when the live spec is no longer `basis`, the spec a draft was made from. */
  #evolveSpec(id: string, evolution: unknown, basis?: ModelSpec): Promise<Evolved> {
    let parsed: SpecEvolution;
    try {
      // A backfilled value is nested from its address down, like a written one.
      checkEnvelope(this.config, evolution, "The evolution", { backfill: "writes" });
      parsed = parseEvolution(evolution);
    } catch (err) {
      return Promise.reject(err);
    }
    const unloaded = this.#unloadedOnly(id);
    if (unloaded) return this.#onUnloaded(id, () => this.#repair(id, unloaded, parsed));
    return this.#exclusive(id, async (slot) => {
      const previous = slot.runtime;
      const { model, warnings } = await this.#evolvedModel(previous.model.spec, parsed, basis);
      const created: CreatedContainers = [];
      const doc = carryForward(
        previous.model,
        model,
        previous.state.doc,
        parsed.backfill,
        (growth) => checkStateBytes(this.config, previous.stateBytes + growth, id),
        created,
      );
      // Only effects the evolution added or changed fire; unchanged ones keep their standing.
      await this.#composition.linked(
        model.spec,
        () => this.#install(slot, model, doc, changedEffectIds(previous.model.spec, model.spec), created),
      );
      return warned({ id, version: model.version }, warnings);
    }, true);
  }

  /**
   * What `spec` becomes under `evolution`: `expectedVersion` and `basis` (the
   * spec a draft was made from) checked (409), the evolution applied and
   * stamped, the result size-checked and compiled with every check, like a
   * new spec (422), with its warnings.
   */
  async #evolvedModel(
    spec: ModelSpec,
    evolution: SpecEvolution,
    basis?: ModelSpec,
  ): Promise<{ model: CompiledModel; warnings: Finding[] }> {
    const live = String(spec.version);
    if (evolution.expectedVersion !== undefined && evolution.expectedVersion !== live) {
      // Cut short as an id would be: the caller's text, echoed whole, could be megabytes.
      throw versionConflict(quoted(evolution.expectedVersion, MAX_QUOTED_WORD), live);
    }
    // An evolution that kept the version still changed the spec the draft was made against.
    if (basis && !jsonEqual(spec as unknown as Json, basis as unknown as Json)) {
      throw conflict(
        `Model '${spec.id}' was evolved while its evolution was being drafted (still version ${live}); ` +
          "draft it again against the current spec",
      );
    }
    const warnings: Finding[] = [];
    const evolved = await this.#composition.stamp(applyEvolution(spec, evolution), spec, warnings);
    checkSpecSize(this.config, evolved, "The evolved spec");
    const { model, errors, warnings: found } = await this.#compile(evolved);
    warnings.push(...found);
    if (!model) throw specInvalid(asSent(errors, evolution), warnings);
    return { model, warnings };
  }

  /**
   * Repairs a stored model that did not load by evolving its stored spec. Its
   * old spec cannot run, so its stored state is rebuilt under the evolved one
   * (the base, then the logged writes replayed: one the evolved spec refuses
   * makes the repair a 422) and carried forward as in any evolution. Until
   * the evolved spec is saved, nothing is written; then the model is
   * registered, its audit trail continuing where it was.
   */
  async #repair(
    id: string,
    { stored }: UnloadedModel,
    evolution: SpecEvolution,
  ): Promise<Evolved> {
    const { model, warnings } = await this.#evolvedModel(stored.spec, evolution);
    const { runtime, problem } = await this.#rebuild(model, stored);
    // A state the store could not read stays unreadable whatever the spec: it is kept and reset as at load.
    if (problem !== null && problem !== stored.problem) {
      throw evolutionRefused([{ location: "state", message: `a stored write does not replay: ${problem}` }]);
    }
    const created: CreatedContainers = [];
    const doc = carryForward(
      priorOf(stored.spec),
      model,
      runtime.state.doc,
      evolution.backfill,
      (growth) => checkStateBytes(this.config, runtime.stateBytes + growth, id),
      created,
    );
    const slot = this.#newSlot(runtime, await this.store.lastAudit(id), stored.jobs ?? []);
    if (problem !== null) await this.#keepForRecovery(stored, problem);
    await this.#composition.linked(model.spec, async () => {
      // Registered before it is installed, in its queue: what comes meanwhile (a job it fires) waits for it.
      this.#slots.set(id, slot);
      try {
        await slot.queue.run(
          () => this.#install(slot, model, doc, changedEffectIds(stored.spec, model.spec), created),
          false,
        );
      } finally {
        // Its runtime is replaced once the evolved spec is saved: from then on it is an ordinary model.
        if (slot.runtime === runtime) {
          slot.deleted = true;
          this.#slots.delete(id);
        } else this.#unloaded.delete(id);
      }
    });
    this.#emit({ type: "created", modelId: id });
    return warned({ id, version: model.version }, warnings);
  }

  /**
   * Installs a new spec over a model's document (an evolution, an approval):
   * every eager value recomputed, the effects in `fire` fired, spec and state
   * saved with the jobs they fired, subscribers told; outstanding jobs then
   * answer to the new spec (removed or untriggered ones are cancelled,
   * re-keyed ones re-fire) and watches follow it.
   */
  async #install(
    slot: Slot,
    model: CompiledModel,
    doc: Json,
    fire: ReadonlySet<string>,
    created: CreatedContainers = [],
  ): Promise<void> {
    const id = model.id;
    const at = this.platform.clock.now();
    const { runtime, outcome } = await slot.runtime.evolve(model, { doc, created }, at, fire);
    checkStateBytes(this.config, runtime.stateBytes, id);
    const jobs = jobsOf(id, outcome.effectRequests, at);
    await this.store.save(model.spec, toPersisted(runtime.state), { jobs: { put: jobs } });
    slot.runtime = runtime;
    this.#fire(slot, outcome.effectRequests, jobs);
    this.#emit({ type: "spec-evolved", modelId: id, version: model.version });
    for (const job of [...slot.jobs.values()]) {
      if (!jobs.includes(job)) await this.#settle(slot, job, null);
    }
    this.#composition.disarm(id);
    await this.#armWatches(slot);
  }

  // ------------------------------------------------------------- composition

  async flattenSpec(input: unknown): Promise<ModelSpec> {
    checkSpecSize(this.config, input);
    return await this.#composition.prepare(input) as ModelSpec;
  }

  getLineage(id: string): Promise<Json[]> {
    return this.#withSlot(id, (slot) => {
      const lineage = slot.runtime.model.spec.lineage;
      return Array.isArray(lineage) ? cloneJson(lineage as Json[]) : [];
    });
  }

  getPendingEffects(id: string): Promise<PendingEffect[]> {
    return this.#exclusive(id, async ({ runtime }) => {
      const doc = await runtime.readState();
      const statusOf = (effect: Effect) =>
        typeof effect.statusPath === "string" ? valueAt(doc, effect.statusPath) : null;
      return cloneJson(pendingEffects(runtime.model.spec, this.config.inheritedEffects, statusOf));
    });
  }

  /**
   * Approves a quarantined effect at its current `definitionHash`: the approval
   * is kept in the spec (durable, and void once the effect's executable members
   * change) and the effect fires if its trigger holds.
   */
  approveEffect(
    id: string,
    effectId: string,
  ): Promise<{ effectId: string; definitionHash: string; approved: true }> {
    return this.#exclusive(id, async (slot) => {
      const spec = slot.runtime.model.spec;
      const effect = (spec.effects ?? []).find((e) => e.id === effectId);
      if (!effect) throw unknownEffect(id, effectId);
      if (effectGate(effect, id, this.config.inheritedEffects) !== "blocked") {
        throw conflict(`Effect '${effectId}' of model '${id}' is not waiting for approval`);
      }
      const model = await this.#compileOrThrow(
        approved(spec, effectId, formatInstant(this.platform.clock.now())),
      );
      await this.#install(slot, model, slot.runtime.state.doc, new Set([effectId]));
      return { effectId, definitionHash: String(effect.definitionHash), approved: true as const };
    }, true);
  }

  promote(id: string, toRepo: string): Promise<{ id: string; promotedTo: string }> {
    if (typeof toRepo !== "string" || toRepo.trim() === "") {
      return Promise.reject(badRequest("toRepo is required"));
    }
    return this.#withSlot(
      id,
      (slot) => this.#composition.promote(id, slot.runtime.model.spec, toRepo.trim()),
    );
  }

  getCompositionGraph(): Promise<CompositionGraph> {
    return this.#composition.graph();
  }

  /**
   * Arms the watches of a model's watched read-links that have folded back
   * once (or keep no status), and are not quarantined (blocked or denied).
   */
  async #armWatches(slot: Slot): Promise<void> {
    const { runtime } = slot;
    for (const node of runtime.model.graph.effects) {
      const link = node.effect.link;
      if (!link?.read || !link.watch) continue;
      if (effectGate(node.effect.definition, runtime.model.id, this.config.inheritedEffects) !== "run") {
        continue;
      }
      const path = node.effect.statusPath;
      const status = path && getAt(runtime.state.doc, path);
      if (path && !(isObject(status) && status.phase === "applied")) continue;
      await this.#composition.arm(runtime.model.id, node);
    }
  }

  /**
   * A watched target changed: the source's read-link folds the new value back (no compare-and-swap). With
   * `problem` instead (the watch's feed interrupted or ended), the link's status document says so.
   */
  #refreshWatch(sourceId: string, effectId: string, value: Json, problem?: string): Promise<void> {
    return this.#exclusive(sourceId, async (slot) => {
      const node = effectNode(slot.runtime.model, effectId);
      if (!node) return;
      const ctx = {
        model: slot.runtime.model,
        doc: await slot.runtime.readState(),
        at: this.platform.clock.now(),
        compiler: this.compiler,
      };
      const status = node.effect.statusPath;
      let error = problem;
      if (!error) {
        try {
          const writes = await responseWrites(node, value, null, ctx);
          // A refusal recorded earlier is cleared by the next refresh the model takes.
          if (status) {
            writes[formatPath([...status, "phase"])] = "applied";
            writes[formatPath([...status, "error"])] = null;
          }
          // Every process sharing the store that holds this watch hears the change; the first one's fold-back
          // leaves nothing for the others (a stale write is retried here against the state it lost to), so a
          // change is folded back once. A change that reads the same value is not committed either.
          const unchanged = ([address, written]: [string, Json]) => {
            const parsed = parsePath(address);
            return parsed.ok && jsonEqual(getAt(ctx.doc, parsed.path), written);
          };
          if (Object.entries(writes).every(unchanged)) return;
          if (status) writes[formatPath([...status, "at"])] = formatInstant(ctx.at);
          await this.#commitFoldback(slot, writes);
          return;
        } catch (err) {
          if (!(err instanceof ServiceError)) throw err;
          // Refused like a job's fold-back: the source keeps its value, and says why (no job to remove).
          error = `fold-back refused: ${err.message}`;
        }
      }
      const kept = status && getAt(ctx.doc, status);
      const unrecorded = await recordFailure(
        status && formatPath(status),
        isObject(kept) ? kept.key ?? null : null,
        ctx.at,
        error,
        (writes) => this.#commitFoldback(slot, writes),
      );
      this.#observer.warn?.(
        `effect '${effectId}' of model '${sourceId}': watched read ${error}${
          unrecorded && `; failure not recorded (${unrecorded})`
        }`,
      );
    });
  }

  // ------------------------------------------------------------------- reads

  getState(id: string, at?: string): Promise<Json> {
    return this.#exclusive(id, async (slot) => cloneJson(await slot.runtime.readState(at)));
  }

  getField(id: string, path: string): Promise<Json> {
    return this.#exclusive(id, async (slot) => cloneJson(await slot.runtime.readField(path)));
  }

  getHistory(id: string): Promise<string[]> {
    return this.#withSlot(id, (slot) => slot.runtime.historyTimestamps());
  }

  getSchema(id: string, path: string): Promise<JsonObject> {
    return this.#withSlot(id, (slot) => slot.runtime.effectiveSchema(path));
  }

  explain(id: string, path: string, limit?: number): Promise<TraceRecord[]> {
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) {
      return Promise.reject(badRequest("limit must be a non-negative integer"));
    }
    return this.#withSlot(id, (slot) => slot.runtime.explain(path, limit));
  }

  snapshot(id: string): Promise<Snapshot> {
    return this.#exclusive(id, (slot) => slot.runtime.snapshot());
  }

  getGraph(id: string): Promise<GraphView> {
    return this.#withSlot(id, ({ runtime: { model } }) => projectGraph(model.id, model.graph));
  }

  getView(id: string, viewId?: string): Promise<EvaluatedView> {
    return this.#exclusive(id, async ({ runtime }) => {
      const view = await evaluateView(runtime.model, await viewStateOf(runtime), viewId);
      return cloneJson(view);
    });
  }

  /** The components of view `viewId` a committed mutation touched, by component id (the `X-View` header). */
  viewDelta(id: string, viewId: string, result: MutationResult): Promise<Record<string, EvaluatedComponent>> {
    return this.#exclusive(id, async ({ runtime }) => {
      const delta = await evaluateViewDelta(runtime.model, await viewStateOf(runtime), viewId, result);
      return cloneJson(delta);
    });
  }

  async getVerification(id: string): Promise<VerificationReport> {
    const slot = await this.#withSlot(id, (slot) => slot);
    const model = slot.runtime.model;
    if (slot.verification?.model !== model) {
      slot.verification = { model, report: await verify(model, this.runtimeEnv) };
    }
    return cloneJson(slot.verification.report);
  }

  async getAudit(id: string, params: AuditParams = {}): Promise<AuditRecord[]> {
    await this.#withSlot(id, () => {});
    const limit = params.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 10000) {
      throw badRequest("limit must be an integer from 1 to 10000");
    }
    const from = params.from !== undefined ? parseInstant(params.from, "from") : undefined;
    const to = params.to !== undefined ? parseInstant(params.to, "to") : undefined;
    // A reversed window is a mistake (the bounds swapped), not a question whose answer is "no records".
    if (from! > to!) throw badRequest(`'from' (${params.from}) is after 'to' (${params.to})`);
    return await this.store.listAudit(id, {
      pathPrefix: params.pathPrefix,
      from,
      to,
      before: params.before,
      limit,
    });
  }

  /**
   * Verifies the model's chain; when it holds, a stored log entry found at load
   * to disagree with its audit record (kept for recovery, the state reset) still
   * makes it invalid, until an operator deletes the recovery records.
   */
  async verifyAudit(id: string): Promise<AuditVerification> {
    await this.#withSlot(id, () => {});
    const verdict = await verifyChain(await this.store.allAudit(id), this.platform.hasher, this.#auditSigner);
    if (!verdict.valid) return verdict;
    const tampered = (await this.store.getRecovery(id)).find((record) => record.auditSequence !== undefined);
    if (!tampered) return verdict;
    return {
      ...verdict,
      valid: false,
      firstBrokenSequence: tampered.auditSequence!,
      detail: `sequence ${tampered.auditSequence}: the stored log entry of this commit did not match it ` +
        `(${tampered.reason}); found at ${tampered.detectedAt}, the state was reset and the stored log kept: ` +
        `GET /admin/recovery/${encodeURIComponent(id)}, then DELETE it once dealt with`,
    };
  }

  // ------------------------------------------------------------------- blobs

  /**
   * Stores a blob by content. The media type must be an RFC 6838 `type/subtype`
   * (it becomes a response header on download). Bytes already stored keep the
   * media type they were first stored with, and the reference says so.
   */
  async uploadBlob(bytes: Uint8Array, mediaType = DEFAULT_BLOB_MEDIA_TYPE): Promise<BlobRef> {
    if (!(bytes instanceof Uint8Array)) throw badRequest("blob data must be bytes");
    if (!MEDIA_TYPE.test(mediaType)) {
      throw badRequest(
        `mediaType must be an RFC 6838 type/subtype such as text/plain, got ${JSON.stringify(mediaType)}`,
      );
    }
    if (bytes.byteLength > this.config.blobMaxBytes) {
      throw tooLarge(
        `Blob of ${bytes.byteLength} bytes exceeds svc.blob.max-bytes (${this.config.blobMaxBytes})`,
      );
    }
    const blobId = await this.platform.hasher.sha256Hex(bytes);
    // One upload at a time from the budget check to the stored bytes: concurrent ones cannot all pass one check.
    return await this.#blobWrites.run(async () => {
      const stored = await this.blobs.get(blobId);
      if (stored) return { $blobId: blobId, $mediaType: stored.mediaType, $bytes: bytes.byteLength };
      const budget = this.config.blobMaxTotalBytes;
      if (budget > 0 && (await this.blobs.totalBytes()) + bytes.byteLength > budget) {
        throw tooLarge(`Blob store budget exhausted (svc.blob.max-total-bytes = ${budget})`);
      }
      await this.blobs.put(blobId, { bytes: bytes.slice(), mediaType });
      return { $blobId: blobId, $mediaType: mediaType, $bytes: bytes.byteLength };
    }, false);
  }

  async getBlob(blobId: string): Promise<BlobContent> {
    const blob = await this.blobs.get(blobId);
    if (!blob) throw notFound(`Blob '${blobId}' not found`);
    return blob;
  }

  async getModelBlob(id: string, blobId: string): Promise<BlobContent> {
    const state = await this.getState(id);
    if (!referencedBlobs(state).has(blobId)) {
      throw notFound(`Blob '${blobId}' is not referenced by model '${id}'`);
    }
    return this.getBlob(blobId);
  }

  /**
   * Lists orphan blobs and, with `apply`, deletes them. The store is listed
   * before the mark set is taken, so a blob uploaded during the run is never
   * swept, and one referenced before the mark is kept; a blob uploaded
   * earlier but referenced only after the mark is swept (an unreferenced
   * upload is an orphan by definition).
   */
  async collectBlobGarbage(apply: boolean): Promise<BlobGcReport> {
    if (apply && !this.#adminWrites) {
      throw new ServiceError("forbidden", "Blob GC with apply=true needs a configured API key (svc.api.key)");
    }
    if (!this.blobs.enumerable) {
      return { supported: false, applied: false, referenced: 0, orphans: [], orphanBytes: 0 };
    }
    const stored = await this.blobs.list();
    const referenced = await this.#referencedBlobIds(apply);
    const orphans = stored.filter((b) => !referenced.has(b.blobId)).sort((a, b) =>
      a.blobId.localeCompare(b.blobId)
    );
    if (apply) { for (const orphan of orphans) await this.blobs.delete(orphan.blobId); }
    return {
      supported: true,
      applied: apply,
      referenced: referenced.size,
      orphans,
      orphanBytes: orphans.reduce((sum, b) => sum + b.bytes, 0),
    };
  }

  /**
   * Blob ids referenced by any stored model's current state or retained
   * history, loaded or not (for one not loaded, whatever its stored data
   * references), or by a state kept for recovery. With `apply`, a model not
   * loaded whose stored state could not be read refuses the sweep (409).
   */
  async #referencedBlobIds(apply: boolean): Promise<Set<string>> {
    const ids = new Set<string>();
    const add = (found: Iterable<string>) => {
      for (const id of found) ids.add(id);
    };
    for (const slot of this.#slots.values()) {
      add(referencedBlobs(slot.runtime.state.doc));
      for (const entry of slot.runtime.history) add(referencedBlobs(entry.state.doc));
    }
    for (const [id, { stored }] of this.#unloaded) {
      if (!stored.problem) add(storedBlobs(stored));
      else if (apply) {
        throw conflict(
          `Blob GC cannot apply: model '${id}' is not loaded and its stored state could not be read ` +
            `(${stored.problem}); repair or delete it first`,
        );
      }
    }
    for (const modelId of new Set((await this.store.listRecovery()).map((r) => r.modelId))) {
      for (const record of await this.store.getRecovery(modelId)) add(storedBlobs(record));
    }
    return ids;
  }

  // ---------------------------------------------------------------- recovery

  listRecovery(): Promise<RecoverySummary[]> {
    return this.store.listRecovery();
  }

  async getRecovery(id: string): Promise<RecoveryRecord[]> {
    const records = await this.store.getRecovery(id);
    if (!records.length) throw notFound(`No recovery record for model '${id}'`);
    return records;
  }

  async deleteRecovery(id: string): Promise<RecoveryDeletion> {
    if (!this.#adminWrites) {
      throw new ServiceError(
        "forbidden",
        "Deleting recovery records needs a configured API key (svc.api.key)",
      );
    }
    const deleted = await this.store.deleteRecovery(id);
    if (!deleted) throw notFound(`No recovery record for model '${id}'`);
    return { modelId: id, deleted };
  }

  // -------------------------------------------------------------- generation

  /** Whether LLM generation is configured (MCP offers its tools only then). */
  get generationAvailable(): boolean {
    return this.#generator !== undefined;
  }

  getGenerationStatus(): Promise<GenerationStatus> {
    return Promise.resolve(
      this.#generator ? { available: true } : { available: false, message: noProvider().message },
    );
  }

  #generation(options: RunOptions = {}): { generator: SpecGenerator; context: GenerationContext } {
    if (!this.#generator) throw noProvider();
    const stop = this.#generations.signal;
    stop.throwIfAborted();
    const signal = options.signal ? AbortSignal.any([options.signal, stop]) : stop;
    return { generator: this.#generator, context: { ...options, signal, authoring: this.authoring } };
  }

  /**
   * Aborts every running generation and refuses new ones (503): a host shutting
   * down does not wait for provider calls that may take minutes.
   */
  stopGenerations(): void {
    this.#generations.abort(unavailable("The service is shutting down"));
  }

  previewGeneration(request: GenerationPreviewRequest): Promise<PromptPreview> {
    return Promise.resolve().then(() => {
      const { generator } = this.#generation();
      return generator.previewGeneration({
        modelId: checkModelId(request.modelId),
        domainDescription: checkDescription(request.domainDescription, "domainDescription"),
        includeView: request.includeView ?? false,
      });
    });
  }

  async generateSpec(request: GenerationRequest, options: RunOptions = {}): Promise<GenerationResult> {
    const { generator, context } = this.#generation(options);
    const modelId = checkModelId(request.modelId);
    const prompt = request.prompt !== undefined && request.prompt !== null
      ? checkPrompt(request.prompt)
      : generator.previewGeneration({
        modelId,
        domainDescription: checkDescription(request.domainDescription, "domainDescription (or prompt)"),
        includeView: request.includeView ?? false,
      }).prompt;
    return await generator.generate({ modelId, prompt: checkPrompt(prompt) }, context);
  }

  /** An evolution request's `currentSpec`: 400 unless it is a spec that validates. */
  #currentSpec(value: unknown): ModelSpec {
    if (!isObject(value)) throw badRequest("currentSpec must be a ModelSpec");
    const { valid, errors } = this.authoring.validateSpec(value as unknown as ModelSpec);
    if (!valid) throw badRequest(`currentSpec does not validate: ${describeFindings(errors)}`);
    return value as unknown as ModelSpec;
  }

  previewEvolution(request: EvolutionPreviewRequest): Promise<PromptPreview> {
    return Promise.resolve().then(() => {
      const { generator } = this.#generation();
      if (!isObject(request.currentSpec)) throw badRequest("currentSpec is required and must be a ModelSpec");
      return generator.previewEvolution({
        modelId: checkModelId(request.modelId),
        currentSpec: this.#currentSpec(request.currentSpec),
        evolutionRequest: checkDescription(request.evolutionRequest, "evolutionRequest"),
        includeView: request.includeView ?? false,
      });
    });
  }

  async generateEvolution(
    request: EvolutionGenerationRequest,
    options: RunOptions = {},
  ): Promise<EvolutionGenerationResult> {
    const { generator, context } = this.#generation(options);
    const modelId = checkModelId(request.modelId);
    const prompt = checkPrompt(request.prompt);
    let currentSpec: ModelSpec;
    if (request.currentSpec !== undefined && request.currentSpec !== null) {
      // No draft applies to a spec that does not validate: refused before the paid attempts, not after them.
      currentSpec = this.#currentSpec(request.currentSpec);
    } else {
      // A draft is checked against a spec: with none given and no such model, 404 before any paid call.
      currentSpec = await this.getSpec(modelId);
    }
    return await generator.generateEvolution({ modelId, prompt, currentSpec }, context);
  }

  /**
   * Drafts an evolution with the LLM and applies it through {@link evolveSpec},
   * guarded by the spec the draft was made against: a concurrent evolution,
   * even one that kept the version, makes it a 409 rather than a blind
   * overwrite. A draft the evolve path refuses (400, 413, 422) goes back to
   * the LLM as findings to repair.
   */
  async evolveSpecAi(
    id: string,
    request: AiEvolutionRequest,
    options: RunOptions = {},
  ): Promise<AiEvolutionResult> {
    const { generator, context } = this.#generation(options);
    const description = checkDescription(request?.description, "description");
    const currentSpec = await this.getSpec(id);
    const version = this.#slot(id).runtime.model.version;
    const includeView = request.includeView ?? isObject(currentSpec.viewDefinition);
    let evolved = version;
    // Applied inside the drafting loop: a draft the evolve path refuses is repaired, not the answer.
    await generator.draftEvolution({
      currentSpec,
      description,
      includeView,
      apply: async (draft) => {
        evolved = (await this.#evolveSpec(id, { ...draft, expectedVersion: version }, currentSpec)).version;
      },
    }, context);
    return { version: evolved, spec: await this.getSpec(id) };
  }

  getLlmInteractions(): Promise<InteractionRecord[]> {
    return Promise.resolve(this.#generator?.interactions() ?? []);
  }

  /**
   * Stops running generations and effects (their jobs stay in the outbox for
   * the next start), ends watches, closes the repositories and releases storage.
   */
  async close(): Promise<void> {
    this.stopGenerations();
    this.#unwatch();
    this.#refreshRetries.close();
    await this.#composition.close();
    await this.#dispatcher?.close();
    await this.store.close();
    await this.blobs.close();
  }
}

/** Where a snapshot's documents land (DECISIONS.md "Snapshot"); restore reads neither cache. */
const SNAPSHOT_MEMBERS: Record<string, EnvelopeMember> = {
  baseDoc: "document",
  derivedCache: "unread",
  metaCache: "unread",
};

/** A snapshot to restore, and the bytes of its base document ({@link snapshotBytes}). */
interface Restoring {
  snapshot: unknown;
  baseBytes: number;
}

/** Checks a snapshot's documents where they land, before any work (422); the bytes of its base document. */
function snapshotBytes(config: EngineConfig, snapshot: unknown): number {
  return checkEnvelope(config, snapshot, "The snapshot", SNAPSHOT_MEMBERS).get("baseDoc") ?? 0;
}

/** An RFC 6838 media type: `type/subtype`, each a restricted name of at most 127 characters. */
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;

/** The media type of an upload that names none. */
export const DEFAULT_BLOB_MEDIA_TYPE = "application/octet-stream";

/** Blob ids referenced by BlobRefs anywhere in a document. */
export function referencedBlobs(doc: Json): Set<string> {
  const ids = new Set<string>();
  const visit = (node: Json) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (isObject(node)) {
      if (typeof node.$blobId === "string") ids.add(node.$blobId);
      for (const value of Object.values(node)) visit(value);
    }
  };
  visit(doc);
  return ids;
}

/** A create of an id in use: a second run of the same create (a stored model survives restarts) says what to do. */
function taken(id: string): ServiceError {
  return conflict(`Model '${id}' already exists: delete it first, or evolve its spec`);
}

/** Whether an error is a refusal, not the store failing (anything else): the same call would fail again. */
function isRefusal(err: unknown): err is ServiceError {
  return err instanceof ServiceError && !isTransient(err);
}

/** Blob ids a model's stored data references (spec, state, logged writes): whatever loading it could bring back. */
function storedBlobs(stored: { spec: ModelSpec; base: PersistedState | null; log: LogEntry[] }): Set<string> {
  return referencedBlobs([stored.spec, stored.base, stored.log] as unknown as Json);
}

/** A create's or an evolution's answer, with the spec's warnings when it has any. */
function warned<T extends object>(answer: T, warnings: Finding[]): T & { warnings?: Finding[] } {
  return warnings.length ? { ...answer, warnings } : answer;
}

function infoOf(model: CompiledModel): ModelInfo {
  const spec = model.spec;
  return {
    id: model.id,
    version: model.version,
    derivationCount: spec.derivations?.length ?? 0,
    metaDerivationCount: spec.metaDerivations?.length ?? 0,
    constraintCount: spec.constraints?.length ?? 0,
    effectCount: spec.effects?.length ?? 0,
  };
}

/**
 * Writes a refused fold-back as the effect's `failed` status document through
 * `commit`; "" when written, else why not (no status document, or the model
 * refused that too).
 */
async function recordFailure(
  statusPath: string | null | undefined,
  key: Json,
  at: number,
  error: string,
  commit: (writes: Record<string, Json>) => Promise<unknown>,
): Promise<string> {
  if (!statusPath) return "no status document";
  try {
    await commit({ [statusPath]: statusDocument("failed", key, at, error) });
    return "";
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    return err.message;
  }
}

/** Where a job's attempts write their phases: its status document, none for a timer (it has no attempt to show). */
function statusAddress(job: EffectJob): string | null {
  return job.statusPath && job.executor !== "timer" ? job.statusPath : null;
}

/** The evaluation of writes the effect machinery makes (fold-backs, phases): source `foldback`. */
function foldbackOf(writes: Record<string, Json>): Evaluation {
  return (runtime, at, after) => runtime.evaluateMutation(writes, "foldback", at, { after });
}

/** Every member of `T`, the optional ones too: a copy written member by member cannot miss one `T` gains. */
type AllMembers<T> = { [K in keyof Required<T>]: T[K] };

/**
 * A result the caller owns: it shares nothing with the runtime's traces, the
 * audit record or what subscribers were given. Its lists of paths are copied
 * flat; the generic deep copy took several times as long, walking every path.
 */
function copyResult(result: MutationResult): MutationResult {
  const copy: AllMembers<MutationResult> = {
    success: result.success,
    mutatedPaths: result.mutatedPaths.slice(),
    derivedUpdated: result.derivedUpdated.slice(),
    metaUpdated: result.metaUpdated.slice(),
    flaggedConstraints: cloneJson(result.flaggedConstraints),
    dispatchedEffects: cloneJson(result.dispatchedEffects),
    traces: result.traces.map(copyTrace),
  };
  return copy;
}

function copyTrace(trace: TraceRecord): TraceRecord {
  const copy: AllMembers<TraceRecord> = {
    targetPath: trace.targetPath,
    expression: trace.expression,
    inputPaths: trace.inputPaths.slice(),
    result: cloneJson(trace.result),
    constraintPassed: trace.constraintPassed,
    errorMessage: trace.errorMessage,
  };
  return copy;
}

function emptyResult(): MutationResult {
  return {
    success: true,
    mutatedPaths: [],
    derivedUpdated: [],
    metaUpdated: [],
    flaggedConstraints: [],
    dispatchedEffects: [],
    traces: [],
  };
}
