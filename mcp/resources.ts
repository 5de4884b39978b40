/**
 * The MCP resources (SPEC.md "MCP resources"): the guides, the two JSON
 * Schemas, the bundled examples and each model's live merged state, the two
 * URI templates, and subscriptions that turn commits into
 * `notifications/resources/updated`.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/types"
import type { ReadResourceResult, Resource, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { EXAMPLES, GUIDES } from "../engine/authoring/mod.ts";
import { MODEL_SPEC_SCHEMA } from "../engine/model/model_spec_schema.ts";
import { ServiceError } from "../engine/errors.ts";
import { SPEC_EVOLUTION_SCHEMA } from "../engine/evolve/schema.ts";
import type { Invoker } from "../engine/operations/invoker.ts";
import { getInfo, getState, listModels, NotPairedError } from "../engine/operations/mod.ts";
import type { CommitEvents, WatchLog } from "./events.ts";
import { ProtocolError } from "./protocol_error.ts";
import { MAX_QUOTED_WORD, quoted } from "../engine/quoted.ts";

/** JSON-RPC error code of an unknown resource (SPEC.md "Errors"). */
export const RESOURCE_NOT_FOUND = -32002;

const STATE_PREFIX = "svc://state/";
const JSON_TYPE = "application/json";

/** The state URI of a model. */
export function stateUri(modelId: string): string {
  return STATE_PREFIX + encodeURIComponent(modelId);
}

/** The model id of a state URI, or `null` for any other URI. */
export function stateModelId(uri: string): string | null {
  if (!uri.startsWith(STATE_PREFIX) || uri.length === STATE_PREFIX.length) return null;
  try {
    return decodeURIComponent(uri.slice(STATE_PREFIX.length));
  } catch {
    return null;
  }
}

interface StaticResource extends Resource {
  text: string;
}

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** Guides, schemas and examples: fixed content, listed in this order. */
const STATIC_RESOURCES: readonly StaticResource[] = [
  ...GUIDES.map((g) => ({
    uri: g.uri,
    name: g.name,
    title: g.title,
    description: g.description,
    mimeType: g.mimeType,
    text: g.text,
  })),
  {
    uri: "svc://schema/model-spec",
    name: "model-spec-schema",
    title: "ModelSpec JSON Schema",
    description: "JSON Schema (2020-12) of a ModelSpec, the body of create_model.",
    mimeType: JSON_TYPE,
    text: pretty(MODEL_SPEC_SCHEMA),
  },
  {
    uri: "svc://schema/spec-evolution",
    name: "spec-evolution-schema",
    title: "SpecEvolution JSON Schema",
    description: "JSON Schema (2020-12) of a SpecEvolution, the body of evolve_spec.",
    mimeType: JSON_TYPE,
    text: pretty(SPEC_EVOLUTION_SCHEMA),
  },
  ...EXAMPLES.map((e) => ({
    uri: `svc://examples/${e.name}`,
    name: `example-${e.name}`,
    title: e.title,
    description: e.description,
    mimeType: JSON_TYPE,
    text: pretty(e.spec),
  })),
];
const BY_URI = new Map(STATIC_RESOURCES.map((r) => [r.uri, r]));

/** The two URI templates. */
export const RESOURCE_TEMPLATES: readonly ResourceTemplate[] = [
  {
    uriTemplate: "svc://examples/{name}",
    name: "example",
    title: "Bundled example spec",
    description: `A realistic ModelSpec with tests and views: ${EXAMPLES.map((e) => e.name).join(", ")}.`,
    mimeType: JSON_TYPE,
  },
  {
    uriTemplate: "svc://state/{modelId}",
    name: "model-state",
    title: "Live model state",
    description: "A model's live merged state (base fields with derived values); subscribable.",
    mimeType: JSON_TYPE,
  },
];

function notFound(uri: string): ProtocolError {
  return new ProtocolError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, {
    uri: quoted(uri, MAX_QUOTED_WORD),
  });
}

/**
 * Every resource: the fixed ones, then the state of each model the API lists
 * (none before a browser pairing is done: there is no session to list yet).
 */
export async function listResources(invoker: Invoker): Promise<Resource[]> {
  const fixed = STATIC_RESOURCES.map(({ text: _text, ...resource }) => resource);
  const models = await invoker.invoke(listModels, {}).catch((err) => {
    if (err instanceof NotPairedError) return [];
    throw err;
  });
  return [
    ...fixed,
    ...models.map((id) => ({
      uri: stateUri(id),
      name: `state-${id}`,
      title: `State of ${id}`,
      description: `Live merged state of model '${id}' (subscribable).`,
      mimeType: JSON_TYPE,
    })),
  ];
}

/** Reads a resource; an unknown URI or model (or one outside this pairing session) is JSON-RPC error -32002. */
export async function readResource(invoker: Invoker, uri: string): Promise<ReadResourceResult> {
  const fixed = BY_URI.get(uri);
  if (fixed) return { contents: [{ uri, mimeType: fixed.mimeType, text: fixed.text }] };
  const modelId = stateModelId(uri);
  if (modelId === null) throw notFound(uri);
  const state = await unknownAsNotFound(uri, invoker.invoke(getState, { id: modelId }));
  return { contents: [{ uri, mimeType: JSON_TYPE, text: pretty(state) }] };
}

/**
 * `answer`, with a model unknown here as -32002: a missing one, or one outside
 * this pairing session (said alike, so as not to tell that it exists).
 */
async function unknownAsNotFound<T>(uri: string, answer: Promise<T>): Promise<T> {
  try {
    return await answer;
  } catch (err) {
    if (err instanceof ServiceError && (err.kind === "not_found" || err.kind === "forbidden")) {
      throw notFound(uri);
    }
    throw err;
  }
}

/**
 * One session's resource subscriptions: each subscribed state URI watches its
 * model's commits and calls `notify` with the URI; `log` hears of the
 * watches' trouble (a feed interrupted, live again, refused for good).
 */
export class ResourceSubscriptions {
  readonly #invoker: Invoker;
  readonly #events: CommitEvents | undefined;
  readonly #notify: (uri: string) => void;
  readonly #log: WatchLog | undefined;
  readonly #watches = new Map<string, () => void>();

  constructor(
    invoker: Invoker,
    events: CommitEvents | undefined,
    notify: (uri: string) => void,
    log?: WatchLog,
  ) {
    this.#invoker = invoker;
    this.#events = events;
    this.#notify = notify;
    this.#log = log;
  }

  /** URIs currently subscribed. */
  get uris(): string[] {
    return [...this.#watches.keys()];
  }

  /**
   * Subscribes to a resource. Fixed resources never change, so subscribing to
   * them is accepted and silent; a state URI must name an existing model.
   */
  async subscribe(uri: string): Promise<void> {
    if (BY_URI.has(uri)) return;
    const modelId = stateModelId(uri);
    if (modelId === null) throw notFound(uri);
    // Checked even when watched already: a credential that ended refuses it like any other request.
    await unknownAsNotFound(uri, this.#invoker.invoke(getInfo, { id: modelId }));
    if (this.#watches.has(uri)) return;
    // A watch that ended on its own is forgotten, so subscribing again watches anew.
    const watch = { stop: () => {} };
    const ended = () => {
      if (this.#watches.get(uri) === watch.stop) this.#watches.delete(uri);
    };
    watch.stop = await this.#events?.watch(modelId, () => this.#notify(uri), ended, this.#log) ?? watch.stop;
    // A concurrent subscribe to the same URI may have won; keep one watch.
    if (this.#watches.has(uri)) watch.stop();
    else this.#watches.set(uri, watch.stop);
  }

  /** Stops notifications for a URI (unknown URIs are ignored). */
  unsubscribe(uri: string): void {
    this.#watches.get(uri)?.();
    this.#watches.delete(uri);
  }

  /** Ends every subscription (session closed). */
  close(): void {
    for (const stop of this.#watches.values()) stop();
    this.#watches.clear();
  }
}
