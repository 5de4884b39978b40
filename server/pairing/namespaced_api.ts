/**
 * A pairing session's view of the service: a {@link ModelApi} over the
 * session's namespace only. The agent and the paired tab write plain model
 * ids (`cart`); the service stores them under the namespace (`pair-…/cart`),
 * and answers show them plain again, so the namespace stays out of their way
 * and nothing outside it can be named:
 *
 * - a model id, or a reference in a spec (`template.ref`, a link's
 *   `target.ref`, `lineage`, a library's `extends` and layer refs), that
 *   names a namespace is refused with 403; plain ones are read inside the
 *   session's namespace;
 * - lists (models, the composition graph) hold the namespace's entries only;
 * - a blob is read through a model of the namespace only if the namespace
 *   uploaded it ({@link SessionBlobs}), with the media type it gave: a
 *   BlobRef naming someone else's blob reads as not found, and an upload's
 *   answer never tells that the bytes were stored before;
 * - what is not about the namespace's models is refused with 403: a blob by
 *   its id alone (read it through its model), blob garbage collection,
 *   recovery records, generation (it spends the operator's LLM provider) and
 *   promotion to another repository;
 * - error messages and bodies lose the namespace prefix too.
 *
 * Audit records are answered as stored: the hash chain covers `modelId`, so a
 * rewritten record could not be verified.
 *
 * @module
 */
import type { AuditRecord, AuditVerification } from "../../engine/audit/chain.ts";
import type { PendingEffect } from "../../engine/composition/quarantine.ts";
import { parseCoordinate } from "../../engine/composition/coordinate.ts";
import { notFound, ServiceError } from "../../engine/errors.ts";
import type { GraphView } from "../../engine/graph/projection.ts";
import type { Json, JsonObject } from "../../engine/json/value.ts";
import type { LibraryDescription } from "../../engine/model/library_description.ts";
import type { ModelSpec } from "../../engine/model/types.ts";
import type { PatchOperation } from "../../engine/runtime/results.ts";
import type { Snapshot } from "../../engine/runtime/runtime.ts";
import type { VerificationReport } from "../../engine/runtime/testing.ts";
import type { TraceRecord } from "../../engine/runtime/traces.ts";
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
} from "../../engine/service/api.ts";
import type { CompositionGraph } from "../../engine/service/composition.ts";
import type { GenerationStatus } from "../../engine/service/generation.ts";
import type { RecoveryDeletion, RecoveryRecord, RecoverySummary } from "../../engine/service/ports.ts";
import { DEFAULT_BLOB_MEDIA_TYPE } from "../../engine/service/service.ts";
import type { EvaluatedView } from "../../engine/view/evaluate.ts";
import type { SessionBlobs } from "./session_blobs.ts";
import type { UnloadedSummary } from "../../engine/service/unloaded.ts";

type Loose = Record<string, unknown>;

const isObject = (value: unknown): value is Loose =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** Calls `fn` on each object of an array member, when the member is an array. */
function eachOf(list: unknown, fn: (entry: Loose) => void): void {
  if (Array.isArray(list)) { for (const entry of list) if (isObject(entry)) fn(entry); }
}

/** This module's refusals: their messages quote the caller as it wrote, so they are never rewritten. */
const OWN = new WeakSet<ServiceError>();

function own(message: string): ServiceError {
  const error = new ServiceError("forbidden", message);
  OWN.add(error);
  return error;
}

/** The refused operations' error. */
function outside(what: string): ServiceError {
  return own(`A pairing session cannot ${what}: it reaches only its own models`);
}

/** The session's namespace, as a {@link ModelApi}. */
export class NamespacedApi implements ModelApi {
  readonly namespaceId: string;
  readonly #api: ModelApi;
  readonly #prefix: string;
  readonly #blobs: SessionBlobs;

  /** `blobs` records the sessions' uploads (one record per server, shared by every view of a namespace). */
  constructor(api: ModelApi, namespaceId: string, blobs: SessionBlobs) {
    this.#api = api;
    this.namespaceId = namespaceId;
    this.#blobs = blobs;
    this.#prefix = `${namespaceId}/`;
  }

  /** The stored id of a session's model id; 403 for an id that names a namespace. */
  stored(id: string): string {
    if (id.includes("/")) {
      throw own(
        `Model '${id}' is outside this pairing session: its model ids are plain names, without a namespace`,
      );
    }
    return this.#prefix + id;
  }

  /** The session's id of a stored id. */
  shown(id: string): string {
    return id.startsWith(this.#prefix) ? id.slice(this.#prefix.length) : id;
  }

  /** A reference of a spec, read inside the namespace; 403 when it names one. */
  #storedRef(ref: unknown): unknown {
    if (typeof ref !== "string") return ref;
    const coordinate = parseCoordinate(ref);
    // Not a coordinate: left for the validator to report (nothing resolves it).
    if (!coordinate) return ref;
    if (coordinate.namespace !== null) {
      throw own(
        `Reference '${ref}' is outside this pairing session: refer to the session's models by plain name`,
      );
    }
    return this.#prefix + ref.trim();
  }

  #shownRef(ref: unknown): unknown {
    return typeof ref === "string" ? this.shown(ref) : ref;
  }

  /**
   * A copy of a spec (or evolution) with its id, references and (answers
   * only) owners mapped: the session's plain names in, its stored ids out.
   */
  #mapRefs<T>(
    value: T,
    map: { ref(ref: unknown): unknown; id?(id: string): string; owner?(o: unknown): unknown },
  ): T {
    if (!isObject(value)) return value;
    const copy = structuredClone(value) as Loose;
    const owner = map.owner ?? ((o: unknown) => o);
    const pinned = (entry: Loose) => {
      if (entry.ref !== undefined) entry.ref = map.ref(entry.ref);
      if (entry.owner !== undefined) entry.owner = owner(entry.owner);
    };
    if (map.id && typeof copy.id === "string") copy.id = map.id(copy.id);
    if (isObject(copy.template)) copy.template.ref = map.ref(copy.template.ref);
    eachOf(copy.lineage, pinned);
    for (const library of [copy.library, copy.newLibrary]) {
      if (!isObject(library)) continue;
      if (library.extends !== undefined) library.extends = map.ref(library.extends);
      eachOf(library.layers, pinned);
    }
    for (const member of ["effects", "upsertEffects"]) {
      eachOf(copy[member], (effect) => {
        if (isObject(effect.target)) effect.target.ref = map.ref(effect.target.ref);
        if (isObject(effect.origin)) {
          effect.origin.fromRef = map.ref(effect.origin.fromRef);
          effect.origin.fromOwner = owner(effect.origin.fromOwner);
        }
      });
    }
    return copy as T;
  }

  /** The session's own namespace as an owner is no owner to it (its models are plain names). */
  #shownOwner(owner: unknown): unknown {
    return owner === this.namespaceId ? null : owner;
  }

  /** Runs a call of the service; its errors lose the namespace prefix. */
  async #run<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      if (
        !(err instanceof ServiceError) || OWN.has(err) ||
        !JSON.stringify([err.message, err.body]).includes(this.#prefix)
      ) {
        throw err;
      }
      const strip = (text: string) => text.replaceAll(this.#prefix, "");
      const body = err.body === undefined ? undefined : JSON.parse(strip(JSON.stringify(err.body)));
      throw new ServiceError(err.kind, strip(err.message), body);
    }
  }

  /** A result whose `modelId` member is shown plain. */
  #withModelId<T>(value: T): T {
    const id = (value as { modelId?: unknown }).modelId;
    return typeof id === "string" ? { ...value, modelId: this.shown(id) } : value;
  }

  listModels(): Promise<string[]> {
    return this.#run(async () =>
      (await this.#api.listModels()).filter((id) => id.startsWith(this.#prefix)).map((id) => this.shown(id))
    );
  }

  createModel(spec: unknown): Promise<ModelInfo> {
    return this.#run(async () => {
      const info = await this.#api.createModel(
        this.#mapRefs(spec, { ref: (ref) => this.#storedRef(ref), id: (id) => this.stored(id) }),
      );
      return { ...info, id: this.shown(info.id) };
    });
  }

  getInfo(id: string): Promise<ModelInfo> {
    return this.#run(async () => {
      const info = await this.#api.getInfo(this.stored(id));
      return { ...info, id: this.shown(info.id) };
    });
  }

  getLibrary(id: string): Promise<LibraryDescription> {
    return this.#run(async () => {
      const library = await this.#api.getLibrary(this.stored(id));
      return {
        ...library,
        layers: library.layers.map((layer) => ({
          ...layer,
          origin: this.shown(layer.origin),
          ...(layer.ref === undefined ? {} : { ref: this.shown(layer.ref) }),
        })),
        exports: library.exports.map((entry) => ({ ...entry, origin: this.shown(entry.origin) })),
      };
    });
  }

  getSpec(id: string): Promise<ModelSpec> {
    return this.#run(async () =>
      this.#mapRefs(await this.#api.getSpec(this.stored(id)), {
        ref: (ref) => this.#shownRef(ref),
        id: (i) => this.shown(i),
        owner: (o) => this.#shownOwner(o),
      })
    );
  }

  deleteModel(id: string): Promise<void> {
    return this.#run(() => this.#api.deleteModel(this.stored(id)));
  }

  getState(id: string, at?: string): Promise<Json> {
    return this.#run(() => this.#api.getState(this.stored(id), at));
  }

  getField(id: string, path: string): Promise<Json> {
    return this.#run(() => this.#api.getField(this.stored(id), path));
  }

  mutate(id: string, mutations: Record<string, Json>, options?: WriteOptions): Promise<WriteResult> {
    return this.#run(() => this.#api.mutate(this.stored(id), mutations, options));
  }

  patch(id: string, ops: PatchOperation[], options?: WriteOptions): Promise<WriteResult> {
    return this.#run(() => this.#api.patch(this.stored(id), ops, options));
  }

  getHistory(id: string): Promise<string[]> {
    return this.#run(() => this.#api.getHistory(this.stored(id)));
  }

  getSchema(id: string, path: string): Promise<JsonObject> {
    return this.#run(() => this.#api.getSchema(this.stored(id), path));
  }

  explain(id: string, path: string, limit?: number): Promise<TraceRecord[]> {
    return this.#run(() => this.#api.explain(this.stored(id), path, limit));
  }

  snapshot(id: string): Promise<Snapshot> {
    return this.#run(async () => this.#withModelId(await this.#api.snapshot(this.stored(id))));
  }

  restore(id: string, snapshot: unknown): Promise<void> {
    return this.#run(() => {
      const given = isObject(snapshot) && typeof snapshot.modelId === "string"
        ? { ...snapshot, modelId: this.stored(snapshot.modelId) }
        : snapshot;
      return this.#api.restore(this.stored(id), given);
    });
  }

  evolveSpec(id: string, evolution: unknown): Promise<Evolved> {
    return this.#run(async () => {
      const result = await this.#api.evolveSpec(
        this.stored(id),
        this.#mapRefs(evolution, { ref: (ref) => this.#storedRef(ref) }),
      );
      return { ...result, id: this.shown(result.id) };
    });
  }

  getGraph(id: string): Promise<GraphView> {
    return this.#run(async () => this.#withModelId(await this.#api.getGraph(this.stored(id))));
  }

  getVerification(id: string): Promise<VerificationReport> {
    return this.#run(async () => this.#withModelId(await this.#api.getVerification(this.stored(id))));
  }

  getAudit(id: string, params?: AuditParams): Promise<AuditRecord[]> {
    return this.#run(() => this.#api.getAudit(this.stored(id), params));
  }

  verifyAudit(id: string): Promise<AuditVerification> {
    return this.#run(() => this.#api.verifyAudit(this.stored(id)));
  }

  uploadBlob(bytes: Uint8Array, mediaType?: string): Promise<BlobRef> {
    return this.#run(async () => {
      const ref = await this.#api.uploadBlob(bytes, mediaType);
      // Bytes stored before keep their first media type in the store; the session is answered (and
      // served) the one it gave, so nothing tells it that someone else uploaded them.
      const own = this.#blobs.record(this.namespaceId, ref.$blobId, mediaType ?? DEFAULT_BLOB_MEDIA_TYPE);
      return { ...ref, $mediaType: own };
    });
  }

  getBlob(_blobId: string): Promise<BlobContent> {
    return Promise.reject(outside("read a blob by its id alone (read it through its model)"));
  }

  getModelBlob(id: string, blobId: string): Promise<BlobContent> {
    return this.#run(async () => {
      const stored = this.stored(id);
      const mediaType = this.#blobs.mediaType(this.namespaceId, blobId);
      // Answered alike whether or not the blob exists, so a guessed id tells nothing.
      if (mediaType === undefined) {
        throw notFound(`Blob '${blobId}' was not uploaded in this pairing session: it reads only its own`);
      }
      return { ...await this.#api.getModelBlob(stored, blobId), mediaType };
    });
  }

  collectBlobGarbage(_apply: boolean): Promise<BlobGcReport> {
    return Promise.reject(outside("collect blob garbage"));
  }

  listUnloadedModels(): Promise<UnloadedSummary[]> {
    return Promise.reject(outside("list unloaded models"));
  }

  listRecovery(): Promise<RecoverySummary[]> {
    return Promise.reject(outside("read recovery records"));
  }

  getRecovery(_id: string): Promise<RecoveryRecord[]> {
    return Promise.reject(outside("read recovery records"));
  }

  deleteRecovery(_id: string): Promise<RecoveryDeletion> {
    return Promise.reject(outside("delete recovery records"));
  }

  getView(id: string, viewId?: string): Promise<EvaluatedView> {
    return this.#run(async () => this.#withModelId(await this.#api.getView(this.stored(id), viewId)));
  }

  getGenerationStatus(): Promise<GenerationStatus> {
    return Promise.resolve({ available: false, message: outside("use LLM generation").message });
  }

  previewGeneration(): Promise<never> {
    return Promise.reject(outside("use LLM generation"));
  }

  generateSpec(): Promise<never> {
    return Promise.reject(outside("use LLM generation"));
  }

  previewEvolution(): Promise<never> {
    return Promise.reject(outside("use LLM generation"));
  }

  generateEvolution(): Promise<never> {
    return Promise.reject(outside("use LLM generation"));
  }

  evolveSpecAi(): Promise<never> {
    return Promise.reject(outside("use LLM generation"));
  }

  getLlmInteractions(): Promise<never> {
    return Promise.reject(outside("read the LLM interaction log"));
  }

  flattenSpec(spec: unknown): Promise<ModelSpec> {
    return this.#run(async () => {
      const own = this.#mapRefs(spec, { ref: (ref) => this.#storedRef(ref) });
      return this.#mapRefs(await this.#api.flattenSpec(own), {
        ref: (ref) => this.#shownRef(ref),
        owner: (o) => this.#shownOwner(o),
      });
    });
  }

  getLineage(id: string): Promise<Json[]> {
    return this.#run(async () =>
      (await this.#api.getLineage(this.stored(id))).map((entry) =>
        isObject(entry)
          ? { ...entry, ref: this.#shownRef(entry.ref), owner: this.#shownOwner(entry.owner) } as Json
          : entry
      )
    );
  }

  getPendingEffects(id: string): Promise<PendingEffect[]> {
    return this.#run(async () =>
      (await this.#api.getPendingEffects(this.stored(id))).map((effect) =>
        isObject(effect.origin)
          ? {
            ...effect,
            origin: {
              ...effect.origin,
              fromRef: this.#shownRef(effect.origin.fromRef),
              fromOwner: this.#shownOwner(effect.origin.fromOwner),
            } as Json,
          }
          : effect
      )
    );
  }

  approveEffect(
    id: string,
    effectId: string,
  ): Promise<{ effectId: string; definitionHash: string; approved: true }> {
    return this.#run(() => this.#api.approveEffect(this.stored(id), effectId));
  }

  promote(_id: string, _toRepo: string): Promise<{ id: string; promotedTo: string }> {
    return Promise.reject(outside("promote a model to another repository"));
  }

  getCompositionGraph(): Promise<CompositionGraph> {
    return this.#run(async () => {
      const graph = await this.#api.getCompositionGraph();
      const mine = (ref: string) => ref.startsWith(this.#prefix);
      return {
        nodes: graph.nodes.filter((n) => mine(n.ref)).map((n) => ({ ...n, ref: this.shown(n.ref) })),
        linkEdges: graph.linkEdges.filter((e) => mine(e.from) && mine(e.to))
          .map((e) => ({ ...e, from: this.shown(e.from), to: this.shown(e.to) })),
        lineageEdges: graph.lineageEdges.filter((e) => mine(e.branch) && mine(e.template))
          .map((e) => ({ branch: this.shown(e.branch), template: this.shown(e.template) })),
      };
    });
  }
}
