/**
 * The service's composition (SPEC.md item 10, decisions/composition.md): the
 * repository chain (this service's models first, then the configured ones),
 * branching on create, the link topology check, links to local and remote
 * models, watches that keep read-links current, promote, and the composition
 * graph. The registry itself (models, queues, commits) stays in
 * service.ts; this module reaches it through {@link CompositionHost}.
 *
 * @module
 */
import type { EngineConfig } from "../config.ts";
import {
  conflict,
  type Finding,
  NoAnswerError,
  notFound,
  ServiceError,
  specInvalid,
  STATUS_OF_KIND,
} from "../errors.ts";
import { parseCoordinate } from "../composition/coordinate.ts";
import { flatten, isBranch, pinned, TemplateError, withoutProvenance } from "../composition/flatten.ts";
import { inheritLibrary, layersOf, originOf } from "../model/library_layers.ts";
import { LinkError, type LinkTargets } from "../composition/link_executor.ts";
import { stampDefinitionHashes } from "../composition/quarantine.ts";
import { refusedUs, type Repository, ResolutionError, resolveRef } from "../composition/repository.ts";
import { checkTopology, type LinkEdge, linkEdges } from "../composition/topology.ts";
import { canonicalJson } from "../json/canonical.ts";
import { isPrefixOf, parsePath } from "../json/path.ts";
import { valueAt } from "../json/document.ts";
import { isObject, type Json, type JsonObject } from "../json/value.ts";
import type { EffectNode } from "../model/nodes.ts";
import type { Effect, ModelSpec } from "../model/types.ts";
import type { Hasher, Scheduler } from "../ports.ts";
import type { ServiceEvent } from "./service.ts";

/** How often a watch reads a target that could not be read again, and the first wait (doubling). */
const WATCH_RETRIES = 6;
const WATCH_RETRY_MS = 1000;

/** What composition needs from the registry. */
export interface CompositionHost {
  config: EngineConfig;
  hasher: Hasher;
  /** Timers of the watches' retries. */
  scheduler: Scheduler;
  /** The configured repositories, in order (after the implicit local one). */
  repositories: readonly Repository[];
  /** The stored (flat) spec of a model running here; null when there is none. */
  localSpec(id: string): ModelSpec | null;
  localIds(): string[];
  /** A client write to a model here (throws its ServiceError). */
  mutate(id: string, mutations: Record<string, Json>): Promise<unknown>;
  /** A model's merged state (throws not_found). */
  state(id: string): Promise<Json>;
  subscribe(listener: (event: ServiceEvent) => void): () => void;
  /**
   * A watch saw the target change: fold `value` back into the source's read-link, in its queue turn; or
   * its feed failed: the link's status document and the log say `problem`.
   */
  refreshWatch(sourceId: string, effectId: string, value: Json, problem?: string): Promise<void>;
}

/** The composition graph (decisions/composition.md "Graph"). */
export interface CompositionGraph {
  nodes: { ref: string; modelClass: "local"; running: true }[];
  linkEdges: { from: string; to: string; effectId: string; kind: "read" | "write"; last: Json }[];
  lineageEdges: { branch: string; template: string }[];
}

/** What a refused link attempt means for the link. */
function linkFailure(err: unknown): LinkError {
  if (err instanceof LinkError) return err;
  if (!(err instanceof ServiceError)) return new LinkError("transport_error", (err as Error).message);
  switch (err.kind) {
    case "not_found":
      return new LinkError("target_unresolved", err.message);
    case "too_many":
      return new LinkError("target_busy", err.message);
    case "constraint_violation":
    case "schema_violation":
    case "validation_failed":
    case "bad_request":
      return new LinkError("target_rejected", err.message);
    default:
      return new LinkError("transport_error", err.message);
  }
}

/**
 * A repository's answer refusing a link's call (a 429, a 422…) named as a lookup's failure is: its message
 * alone reads as this service's. No answer, and a message naming the repository already, stay as they are.
 */
function answeredBy(repo: string, what: string, err: unknown): unknown {
  if (
    !(err instanceof ServiceError) || err instanceof NoAnswerError ||
    err.message.startsWith(`Repository '${repo}'`)
  ) {
    return err;
  }
  return new ServiceError(
    err.kind,
    `Repository '${repo}' failed to ${what} (it answered ${STATUS_OF_KIND[err.kind]}): ${err.message}`,
  );
}

/** Composition of one service. */
export class Composition {
  readonly #host: CompositionHost;
  readonly #watches = new Map<string, { target: string; stop: () => void }>();
  /** Settles when the spec with links being checked and registered is registered (or refused). */
  #linking: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(host: CompositionHost) {
    this.#host = host;
  }

  /** The repository chain: this service's models, then the configured repositories. */
  chain(): Repository[] {
    const local: Repository = {
      id: "local",
      repoClass: "local",
      fetch: (identity) => Promise.resolve(this.#host.localSpec(identity)),
    };
    return [local, ...this.#host.repositories];
  }

  /**
   * The spec a create registers: a branch flattened over its template
   * (422 with the reason at `template`), any other spec as its author's own
   * (without the `lineage` and effect provenance only flattening writes), a
   * library's `extends` resolved into pinned layers (422 at
   * `library.extends`), the inherited effects' hashes stamped. `warnings`
   * gets {@link #extended}'s.
   */
  async prepare(spec: unknown, warnings: Finding[] = []): Promise<unknown> {
    await this.#checkPins(spec);
    let flat = spec;
    if (isBranch(spec)) {
      try {
        flat = flatten(spec, await resolveRef(spec.template.ref, this.chain(), this.#host.hasher));
      } catch (err) {
        throw refusal(err, err instanceof ResolutionError ? "template.ref" : "template");
      }
    } else flat = authored(spec);
    if (!isObject(flat)) return flat;
    return await stampDefinitionHashes(
      await this.#extended(flat as unknown as ModelSpec, warnings),
      this.#host.hasher,
    );
  }

  /**
   * Refuses (422 at the layer) a library layer a spec pins itself (`ref`)
   * unless the model it names, at its `digest`, passes that very layer on as
   * flattening or `extends` would pin it: a pin claims provenance (`GET
   * /library` shows its origin), so it must be true, as {@link authored} keeps
   * effects from claiming theirs.
   */
  async #checkPins(spec: unknown): Promise<void> {
    for (const { layer, location, inherited } of layersOf(isObject(spec) ? spec.library : null)) {
      if (!inherited) continue;
      try {
        const base = await resolveRef(`${layer.ref}@${layer.digest}`, this.chain(), this.#host.hasher);
        const passed = layersOf(inheritLibrary(base.spec.library, null, pinned(base)));
        if (!passed.some((p) => canonicalJson(p.layer) === canonicalJson(layer))) {
          throw specInvalid([{ location, message: `is not a layer ${base.ref} passes on` }]);
        }
      } catch (err) {
        throw refusal(err, location);
      }
    }
  }

  /**
   * A spec whose library `extends` another model's: that library's layers,
   * pinned, under its own (replacing layers pinned before from that model or
   * from the bases it passes on: an earlier `extends`, a template's). A
   * warning when replaced layers had other code: another version, when pinned
   * layers of another model (a template's) were built on them and now run on
   * the new ones; the same version, whatever is built on them (the base
   * evolved keeping it).
   */
  async #extended(spec: ModelSpec, warnings: Finding[]): Promise<ModelSpec> {
    const library = spec.library;
    if (!isObject(library) || typeof library.extends !== "string") return spec;
    const { extends: ref, ...own } = library;
    try {
      const base = await resolveRef(ref as string, this.chain(), this.#host.hasher);
      if (base.spec.library === undefined || base.spec.library === null) {
        throw specInvalid([{ location: "library.extends", message: `'${ref}' has no library to extend` }]);
      }
      // As a template may not be its own ancestor: the model's own code would come back as inherited.
      if ([base.identity, ...layersOf(base.spec.library).map((p) => p.layer.ref)].includes(spec.id)) {
        throw specInvalid([{
          location: "library.extends",
          message: `LibraryCycle: '${spec.id}' would inherit its own library through '${ref}'`,
        }]);
      }
      // The models whose layers the base brings: itself (its own layers, at its version) and its own bases
      // (the layers it passes on, pinned). Their earlier copies here go: kept after the new ones, they would
      // shadow them.
      const next = new Map<string, { version: string; defines: string[] }>([[base.identity, {
        version: base.version,
        defines: [],
      }]]);
      for (const { layer, inherited } of layersOf(base.spec.library)) {
        const ref = inherited ? layer.ref! : base.identity;
        const entry = next.get(ref) ?? { version: layer.version!, defines: [] };
        next.set(ref, entry);
        entry.defines.push(layer.define);
      }
      if (Array.isArray(own.layers)) {
        const layers = own.layers;
        for (const [ref, { version, defines }] of next) {
          const last = layers.findLastIndex((layer) => layer?.ref === ref);
          const was = layers[last];
          // A layer of another model built on the replaced ones (a template's), which now runs on the new.
          const on = layers.slice(last + 1).find((layer) => layer?.ref && !next.has(layer.ref));
          // Warned of when the code differs: another version under such a layer; or, under any, other code
          // of the same version (the base evolved its library without a new one), which a pin cannot tell.
          const same = was?.version === version;
          const changed = canonicalJson(
            layers.filter((layer) => layer?.ref === ref).map((layer) => layer.define),
          ) !==
            canonicalJson(defines);
          if (was && changed && (same || on)) {
            warnings.push({
              location: "library.extends",
              message: `'${on ? originOf(on) : spec.id}' was built on '${
                originOf(was)
              }': it now runs on ${version}${same ? " with other code" : ""}`,
            });
          }
        }
        own.layers = layers.filter((layer) => !isObject(layer) || !next.has(layer.ref as string));
      }
      return { ...spec, library: inheritLibrary(base.spec.library, own, pinned(base)) } as ModelSpec;
    } catch (err) {
      throw refusal(err, "library.extends");
    }
  }

  /**
   * An evolved spec with a `newLibrary`'s `extends` resolved as at create
   * (422 at `library.extends`) and its effects' provenance carried over: an
   * upserted effect keeps the `origin` and `approval` of the one it replaces
   * (whatever the evolution says), and the hashes are stamped again, so an
   * edit of what an inherited effect executes quarantines it again;
   * `warnings` gets {@link #extended}'s.
   */
  async stamp(spec: ModelSpec, previous: ModelSpec, warnings: Finding[]): Promise<ModelSpec> {
    const evolved = await this.#extended(spec, warnings);
    const before = new Map((previous.effects ?? []).map((e) => [e.id, e]));
    const effects = evolved.effects?.map((effect) => {
      const prior = before.get(effect.id);
      if (prior === effect) return effect;
      const carried = withoutProvenance(effect as unknown as JsonObject) as unknown as Effect;
      if (prior?.origin !== undefined) carried.origin = prior.origin;
      if (prior?.approval !== undefined) carried.approval = prior.approval;
      return carried;
    });
    return await stampDefinitionHashes(effects ? { ...evolved, effects } : evolved, this.#host.hasher);
  }

  /**
   * Registers a spec with `register` once its links pass the topology check
   * (422 when they point nowhere or close an unguarded cycle). Specs with
   * links are checked and registered one at a time: two evolutions checked
   * side by side could each close half of a cycle the other completes.
   */
  async linked<T>(spec: ModelSpec, register: () => Promise<T>): Promise<T> {
    if (!linkEdges(spec).length) return await register();
    const earlier = this.#linking;
    let done!: () => void;
    this.#linking = new Promise((resolve) => (done = resolve));
    try {
      await earlier;
      await this.#checkLinks(spec);
      return await register();
    } finally {
      done();
    }
  }

  async #checkLinks(spec: ModelSpec): Promise<void> {
    const models = this.#host.localIds().map((id) => this.#host.localSpec(id)).filter((s): s is ModelSpec =>
      !!s
    );
    const findings = await checkTopology(
      spec,
      models,
      // Why nothing holds a target, a repository that did not answer named; a refusal or failure throws (502).
      async (ref) => {
        const held = await this.#holder(ref);
        return typeof held === "string" ? held : null;
      },
      this.#host.config.compositionLazyBinding,
    );
    if (findings.length) throw specInvalid(findings);
  }

  /** How link effects reach their targets. */
  linkTargets(): LinkTargets {
    return {
      write: async (ref, path, value, signal) => {
        const { repo, identity } = await this.#target(ref);
        try {
          if (repo.id === "local") {
            await this.#host.mutate(identity, { [path]: value });
            return await this.#host.state(identity);
          }
          if (!repo.write) {
            throw new LinkError("target_unresolved", `repository '${repo.id}' cannot take writes`);
          }
          return await repo.write(identity, path, value, signal).catch((err) => {
            throw answeredBy(repo.id, `write '${identity}'`, err);
          });
        } catch (err) {
          throw linkFailure(err);
        }
      },
      read: async (ref, path, signal) => {
        const { repo, identity } = await this.#target(ref);
        try {
          if (repo.id === "local") return valueAt(await this.#host.state(identity), path);
          if (!repo.read) throw new LinkError("target_unresolved", `repository '${repo.id}' cannot be read`);
          return await repo.read(identity, path, signal).catch((err) => {
            throw answeredBy(repo.id, `read '${identity}'`, err);
          });
        } catch (err) {
          throw linkFailure(err);
        }
      },
    };
  }

  /** The repository holding a link's target, or why none does (a repository not answering); a refusal throws. */
  async #holder(ref: string): Promise<{ repo: Repository; identity: string } | string> {
    const chain = this.chain();
    try {
      const { repo, identity } = await resolveRef(ref, chain, this.#host.hasher);
      return { repo: chain.find((r) => r.id === repo)!, identity };
    } catch (err) {
      if (refusedUs(err)) throw err;
      return (err as Error).message;
    }
  }

  /** The repository holding a link's target; unresolved, the resolution's reason. */
  async #target(ref: string): Promise<{ repo: Repository; identity: string }> {
    const held = await this.#holder(ref);
    if (typeof held === "string") throw new LinkError("target_unresolved", held);
    return held;
  }

  /**
   * Keeps a watched read-link current: whenever its target commits a change
   * overlapping the read path (prefix either way), the field is read again and
   * folded back into the source. Idempotent; ends with either model.
   */
  async arm(sourceId: string, node: EffectNode): Promise<void> {
    const link = node.effect.link;
    if (!link?.read || !link.watch) return;
    const key = `${sourceId}\u0000${node.effect.definition.id}`;
    if (this.#watches.has(key)) return;
    const coordinate = parseCoordinate(link.ref);
    const read = parsePath(link.read);
    if (!coordinate || !read.ok) return;
    const touches = (paths: readonly string[]) =>
      paths.some((p) => {
        const parsed = parsePath(p);
        return parsed.ok && (isPrefixOf(parsed.path, read.path) || isPrefixOf(read.path, parsed.path));
      });
    const { scheduler } = this.#host;
    let retry: unknown = null;
    const cancelRetry = () => {
      if (retry !== null) scheduler.clearTimeout(retry);
      retry = null;
    };
    // A target that cannot be read (its repository down) is read again after 1, 2, 4… seconds, up to
    // WATCH_RETRIES times; a newer change supersedes the pending retry. A value the source refuses is
    // not read again (it would be refused again); a gone model ends the watch through its event.
    const refresh = async (attempt = 0) => {
      cancelRetry();
      let value: Json;
      try {
        value = await this.linkTargets().read(link.ref, link.read!, new AbortController().signal);
      } catch {
        if (attempt < WATCH_RETRIES && !this.#closed && this.#watches.get(key) === entry) {
          retry = scheduler.setTimeout(() => {
            retry = null;
            void refresh(attempt + 1);
          }, WATCH_RETRY_MS * 2 ** attempt);
        }
        return;
      }
      await this.#host.refreshWatch(sourceId, node.effect.definition.id, value).catch(() => {});
    };
    const entry = { target: coordinate.identity, stop: cancelRetry };
    this.#watches.set(key, entry);
    const repo = await this.#target(link.ref).then((t) => t.repo, () => null);
    let stop: () => void = () => {};
    if (repo?.id === "local") {
      stop = this.#host.subscribe((event) => {
        if (event.modelId !== coordinate.identity) return;
        // An evolution recomputes every eager value and a restore replaces them all: read again.
        if (
          event.type === "spec-evolved" || event.type === "restored" ||
          event.type === "mutation" && touches([...event.result.mutatedPaths, ...event.result.derivedUpdated])
        ) {
          void refresh();
        }
      });
    } else if (repo?.watch) {
      stop = await repo.watch(
        coordinate.identity,
        (paths) => touches(paths) && void refresh(),
        (problem, final) => {
          // Ended for good: the link's next fire arms it again.
          if (final) this.#end((_, watch) => watch === entry);
          void this.#host.refreshWatch(sourceId, node.effect.definition.id, null, problem).catch(() => {});
        },
      );
    } else {
      // Nothing holds the target now (or its repository cannot watch, or refuses us): the link's next
      // fire arms again.
      this.#watches.delete(key);
      return;
    }
    // Ended meanwhile (shutdown, or either model deleted): do not leave a listener behind.
    if (this.#closed || this.#watches.get(key) !== entry) stop();
    else {
      entry.stop = () => {
        stop();
        cancelRetry();
      };
    }
  }

  /** Ends the watches of a deleted model, and the watches on it. */
  forget(modelId: string): void {
    this.#end((key, watch) => key.startsWith(`${modelId}\u0000`) || watch.target === modelId);
  }

  /** Ends a model's own watches (its spec changed: they are armed again from the new one); watches on it stay. */
  disarm(modelId: string): void {
    this.#end((key) => key.startsWith(`${modelId}\u0000`));
  }

  #end(which: (key: string, watch: { target: string }) => boolean): void {
    for (const [key, watch] of this.#watches) {
      if (which(key, watch)) {
        watch.stop();
        this.#watches.delete(key);
      }
    }
  }

  /** Ends every watch and closes the configured repositories (shutdown). */
  async close(): Promise<void> {
    this.#closed = true;
    for (const watch of this.#watches.values()) watch.stop();
    this.#watches.clear();
    await Promise.all(this.#host.repositories.map((repo) => repo.close?.().catch(() => {})));
  }

  /**
   * Publishes a model to a web repository (decisions/composition.md
   * "Promote"): the checks in order, then the publication; the model stays here.
   */
  async promote(id: string, spec: ModelSpec, toRepo: string): Promise<{ id: string; promotedTo: string }> {
    const target = this.chain().find((r) => r.id === toRepo);
    if (!target) throw conflict(`Unknown repository '${toRepo}'`);
    if (target.repoClass === "local") {
      throw new ServiceError("not_allowed", `DemoteUnsupported: '${toRepo}' is a local repository`);
    }
    if (!target.publish) throw conflict(`Repository '${toRepo}' cannot publish`);
    // Every web repository, not the target's own chain (its models, then its configured repositories), which
    // cannot be seen from here: a reference held only by another one passes, and a target not configured with
    // that repository refuses the model itself (README "Promote").
    const web = this.#host.repositories.filter((r) => r.repoClass === "web");
    // Each reference, with how a refusal names it. A pinned library layer is looked up at its digest: the
    // repository's create takes it only from the model it names at that digest.
    const refs = new Map<string, string>([
      ...linkEdges(spec).map((e) => e.ref),
      ...(Array.isArray(spec.lineage) ? spec.lineage : []).map((e) => String((e as { ref?: unknown }).ref)),
    ].map((ref) => [ref, ""]));
    for (const { layer, inherited, origin } of layersOf(spec.library)) {
      if (inherited) refs.set(`${layer.ref}@${layer.digest}`, `library '${origin}': `);
    }
    // Why each reference is not found there (a repository that did not answer named).
    const open: string[] = [];
    for (const [ref, named] of refs) {
      try {
        await resolveRef(ref, web, this.#host.hasher);
      } catch (err) {
        if (refusedUs(err)) throw err;
        open.push(named + (err as Error).message);
      }
    }
    if (open.length) {
      throw conflict(`Promotion of '${id}' is not closed in the web repositories: ${open.join("; ")}`);
    }
    await target.publish(spec);
    return { id, promotedTo: toRepo };
  }

  /** Links and lineage among this service's models, with each link's last status. */
  async graph(): Promise<CompositionGraph> {
    const graph: CompositionGraph = { nodes: [], linkEdges: [], lineageEdges: [] };
    for (const id of this.#host.localIds()) {
      const spec = this.#host.localSpec(id);
      if (!spec) continue;
      graph.nodes.push({ ref: id, modelClass: "local", running: true });
      const edges: LinkEdge[] = linkEdges(spec);
      const state = edges.some((e) => e.statusPath) ? await this.#host.state(id).catch(() => null) : null;
      for (const edge of edges) {
        const status = edge.statusPath && state !== null ? valueAt(state, edge.statusPath) : null;
        const last = isObject(status)
          ? { phase: status.phase ?? null, at: status.at ?? null, error: status.error ?? null }
          : null;
        graph.linkEdges.push({ from: id, to: edge.to, effectId: edge.effectId, kind: edge.kind, last });
      }
      const parent = Array.isArray(spec.lineage)
        ? spec.lineage[0] as { ref?: unknown } | undefined
        : undefined;
      if (parent && typeof parent.ref === "string") {
        graph.lineageEdges.push({ branch: id, template: parent.ref });
      }
    }
    return graph;
  }
}

/**
 * A spec that is not a branch as its author's own: `lineage` and the effects'
 * `origin`, `definitionHash` and `approval` are the service's to write (a
 * written `origin` would pass an effect off as inherited from its author's
 * own namespace and out of quarantine in the branches of others). A spec read
 * back from a branch can be created again: it then has no ancestors.
 */
function authored(spec: unknown): unknown {
  if (!isObject(spec)) return spec;
  const { lineage: _lineage, ...own } = spec;
  if (Array.isArray(own.effects)) {
    own.effects = own.effects.map((effect) => isObject(effect) ? withoutProvenance(effect) : effect);
  }
  return own;
}

/** A resolution or template failure as a 422 finding at `location`; anything else as it is. */
function refusal(err: unknown, location: string): unknown {
  if (err instanceof ResolutionError || err instanceof TemplateError) {
    return specInvalid([{ location, message: `${err.code}: ${err.message}` }]);
  }
  return err;
}

/** The 404 of an unknown effect of a model. */
export function unknownEffect(modelId: string, effectId: string): ServiceError {
  return notFound(`Effect '${effectId}' not found in model '${modelId}'`);
}
