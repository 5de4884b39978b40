/**
 * The `mcp` repository transport: a child process speaking MCP over stdio
 * (another `svc mcp`, or any server offering the same tools), reached through
 * the official SDK client. Specs are read with `get_spec`, published with
 * `create_model`, links go through `mutate` and `get_state`, and watches
 * subscribe to the `svc://state/<id>` resource. The child starts on first use
 * and again on the next use after it exits; while watches follow it, a child
 * that exits is started again as an `http` repository's feed reconnects
 * (./http.ts): after 1, 2, 4… reconnect delays, reported on the watches once
 * the first restart fails too, ended after WATCH_RECONNECTS failed in a row.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/shared/protocol"
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from "@modelcontextprotocol/sdk/shared/protocol.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Repository, RepositoryClass } from "../engine/composition/repository.ts";
import { type ErrorKind, NoAnswerError, ServiceError, STATUS_OF_KIND } from "../engine/errors.ts";
import type { Json } from "../engine/json/value.ts";
import type { ModelSpec } from "../engine/model/types.ts";
import { SERVICE_NAME, SERVICE_VERSION } from "../engine/version.ts";
import { valueAt } from "../engine/json/document.ts";
import { GLOBAL_SCHEDULER, type Scheduler } from "../engine/ports.ts";
import { ERROR_KIND_META, NO_ANSWER_META } from "../mcp/results.ts";
import { RESOURCE_NOT_FOUND } from "../mcp/resources.ts";
import { upstreamRefusal } from "./upstream_refusal.ts";
import { lookupFailure, publicationFailure, type RepositoryAnswer } from "./lookup_failure.ts";

/** Restarts in a row of a watched child before its watches end (waits 1, 2, 4… 32 s by default), as http's. */
const WATCH_RECONNECTS = 6;

/** Options of {@link mcpRepository}. */
export interface McpRepositoryOptions {
  id: string;
  repoClass: RepositoryClass;
  /** The command and its arguments. */
  argv: string[];
  /** Reaches the child as `SVC_API_KEY`. */
  credential: string | null;
  /** How long a spec lookup may take before the child counts as not answering (ms, default the MCP client's). */
  lookupTimeoutMs?: number;
  /** Receives the child's diagnostics (its stderr), line by line. */
  log?: (line: string) => void;
  /** The connection to a new child (default: `argv` started with stdio; an in-memory server in tests). */
  transport?: () => Transport;
  /** Delay before a watched child that exited first starts again (ms); it doubles with each failed start. */
  reconnectMs?: number;
  /** The restart timers (default the global ones). */
  scheduler?: Scheduler;
}

const STATE_URI = (id: string) => `svc://state/${id}`;

/** A watch of one model: its listener and where its trouble goes. */
interface Watcher {
  onChange(paths: string[]): void;
  onProblem(problem: string, final: boolean): void;
}

/**
 * The child did not answer (it did not start, its connection failed: internal; it was silent past the timeout:
 * unavailable, a 503 as an http repository's silent server): unlike a tool's error, no answer.
 */
class ChildNoAnswer extends ServiceError {
  /** What happened, without the repository's name. */
  readonly reason: string;
  constructor(
    repo: string,
    reason: string,
    message = `Repository '${repo}' ${reason}`,
    kind: ErrorKind = "internal",
  ) {
    super(kind, message);
    this.reason = reason;
  }
}

/**
 * A failed call as the child's answer: the error and the status of its kind. A child that did not answer gave
 * none (`null`), nor did one whose own server did not (an `svc mcp --url` child relays that as its failure).
 * A tool's failure carries no `Retry-After`.
 */
function answered(err: unknown): [err: unknown, answer: RepositoryAnswer] {
  if (err instanceof ChildNoAnswer) return [new Error(err.reason), { status: null }];
  if (err instanceof NoAnswerError) return [err, { status: null }];
  return [err, { status: STATUS_OF_KIND[(err as ServiceError).kind] ?? 500 }];
}

/** The stdio connection to a new child running `argv`, its stderr passed to `log`. */
function stdioTransport(options: McpRepositoryOptions): Transport {
  const [command, ...args] = options.argv;
  const env = {
    ...getDefaultEnvironment(),
    ...(options.credential ? { SVC_API_KEY: options.credential } : {}),
  };
  const transport = new StdioClientTransport({ command, args, env, stderr: "pipe" });
  transport.stderr?.on("data", (chunk: Uint8Array) => {
    for (const line of new TextDecoder().decode(chunk).split("\n")) {
      if (line.trim()) options.log?.(`repository '${options.id}': ${line}`);
    }
  });
  return transport;
}

/** A repository behind an MCP server started as a child process. */
export function mcpRepository(options: McpRepositoryOptions): Repository {
  let connecting: Promise<Client> | null = null;
  let closed = false;
  const watchers = new Map<string, Set<Watcher>>();
  const scheduler = options.scheduler ?? GLOBAL_SCHEDULER;
  const reconnectMs = options.reconnectMs ?? 1_000;
  const named = (message: string) => `Repository '${options.id}': ${message}`;
  const everyWatcher = () => [...watchers.values()].flatMap((set) => [...set]);

  // Restarts of a watched child that exited: failed ones so far, and the pending one.
  let failedRestarts = 0;
  let restart: unknown = null;
  const lost = () => {
    if (closed || !watchers.size || restart !== null) return;
    restart = scheduler.setTimeout(() => void restartChild(), reconnectMs * 2 ** failedRestarts);
  };
  const restartChild = async () => {
    restart = null;
    // Nothing followed any more: the next use starts the child.
    if (closed || !watchers.size) return;
    try {
      await connect();
    } catch (err) {
      const message = (err as ChildNoAnswer).reason;
      if (++failedRestarts >= WATCH_RECONNECTS) {
        const ended = everyWatcher();
        watchers.clear();
        failedRestarts = 0;
        const why = `Live updates stopped after ${WATCH_RECONNECTS} failed restarts: ${message}`;
        for (const watcher of ended) watcher.onProblem(`feed ended: ${named(why)}`, true);
        return;
      }
      // A child back at its first restart is no failure of the watches; one that is not back is.
      if (failedRestarts === 1) {
        for (const watcher of everyWatcher()) watcher.onProblem(`feed interrupted: ${named(message)}`, false);
      }
      return lost();
    }
    failedRestarts = 0;
    // What committed while the child was gone sent no notification: every watched read reads again.
    for (const watcher of everyWatcher()) watcher.onChange(["$"]);
  };

  /** Subscribes again to a watched model; one gone there ends its watches as a change read again. */
  const resubscribe = async (client: Client, id: string) => {
    try {
      await client.subscribeResource({ uri: STATE_URI(id) });
    } catch (err) {
      const ended = [...watchers.get(id) ?? []];
      watchers.delete(id);
      const gone = (err as { code?: unknown }).code === RESOURCE_NOT_FOUND;
      for (const watcher of ended) {
        if (gone) watcher.onChange(["$"]);
        else watcher.onProblem(`feed ended: ${named((err as Error).message)}`, true);
      }
    }
  };

  /** Starts a child and subscribes again to the watched models; `ended` hears of its connection closing. */
  const start = async (ended: () => void): Promise<Client> => {
    const client = new Client({ name: `${SERVICE_NAME} repository client`, version: SERVICE_VERSION });
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, ({ params }) => {
      const id = params.uri.startsWith("svc://state/") ? params.uri.slice("svc://state/".length) : null;
      // The notification names no paths: every watched read of the model reads again.
      for (const watcher of (id && watchers.get(id)) || []) watcher.onChange(["$"]);
    });
    try {
      await client.connect((options.transport ?? (() => stdioTransport(options)))());
    } catch (err) {
      throw new ChildNoAnswer(options.id, `did not start: ${(err as Error).message}`);
    }
    // Set once connected: a child that never started is no watched child lost.
    client.onclose = ended;
    for (const id of [...watchers.keys()]) await resubscribe(client, id);
    return client;
  };

  /** The running child's client, started on first use and on the next use after it exits. */
  const connect = (): Promise<Client> => {
    if (connecting) return connecting;
    const started = start(() => {
      if (connecting !== started) return;
      connecting = null;
      lost();
    });
    connecting = started;
    // A child that did not start: the next use tries again.
    started.catch(() => {
      if (connecting === started) connecting = null;
    });
    return started;
  };

  /** Calls tool `name`; `timeout` (ms) bounds the wait for its answer (default the MCP client's). */
  const call = async (
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    timeout?: number,
  ): Promise<Json> => {
    const client = await connect();
    let result: CallToolResult;
    try {
      result = await client.callTool({ name, arguments: args }, undefined, {
        signal,
        timeout,
      }) as CallToolResult;
    } catch (err) {
      // The SDK rejects a cancelled call as timed out: the caller gave up, the child did not fail.
      if (signal?.aborted) {
        throw new ServiceError("unavailable", named(`${name} was cancelled before the child answered`));
      }
      if (!(err instanceof McpError && err.code === ErrorCode.RequestTimeout)) {
        throw new ChildNoAnswer(options.id, `failed on ${name}: ${(err as Error).message}`);
      }
      // Worded as an http repository's timeout (fetch_within.ts), the child standing for the server.
      const ms = timeout ?? DEFAULT_REQUEST_TIMEOUT_MSEC;
      const reason = `The child '${options.argv[0]}' did not answer ${name} within ${ms} ms`;
      throw new ChildNoAnswer(options.id, reason, `Repository '${options.id}': ${reason}`, "unavailable");
    }
    if (result.isError) throw toolError(result);
    return resultValue(result);
  };

  // A link's call: a refusal of our credential is a 502 naming this repository, not a 401 or 403 of ours.
  const linkCall = async (...args: Parameters<typeof call>): Promise<Json> => {
    try {
      return await call(...args);
    } catch (err) {
      throw upstreamRefusal(options.id, err) ?? err;
    }
  };

  return {
    id: options.id,
    repoClass: options.repoClass,
    async fetch(identity) {
      try {
        return await call(
          "get_spec",
          { id: identity },
          undefined,
          options.lookupTimeoutMs,
        ) as unknown as ModelSpec;
      } catch (err) {
        const failure = lookupFailure(options.id, identity, ...answered(err));
        if (failure) throw failure;
        return null;
      }
    },
    async publish(spec) {
      try {
        await call("create_model", { spec });
      } catch (err) {
        throw publicationFailure(options.id, ...answered(err));
      }
    },
    async write(identity, path, value, signal) {
      await linkCall("mutate", { id: identity, mutations: { [path]: value } }, signal);
      return await linkCall("get_state", { id: identity }, signal);
    },
    async read(identity, path, signal) {
      return valueAt(await linkCall("get_state", { id: identity, paths: [path] }, signal), path);
    },
    async watch(identity, onChange, onProblem = () => {}) {
      // Registered once the child runs: a child this call starts subscribes to the models watched before it
      // (start), so one registered earlier would be subscribed there and again here.
      const client = await connect();
      const listeners = watchers.get(identity) ?? new Set();
      const first = listeners.size === 0;
      const watcher = { onChange, onProblem };
      listeners.add(watcher);
      watchers.set(identity, listeners);
      try {
        if (first) await client.subscribeResource({ uri: STATE_URI(identity) });
      } catch (err) {
        listeners.delete(watcher);
        if (!listeners.size && watchers.get(identity) === listeners) watchers.delete(identity);
        throw err;
      }
      return () => {
        listeners.delete(watcher);
        if (listeners.size) return;
        watchers.delete(identity);
        void connecting?.then((client) => client.unsubscribeResource({ uri: STATE_URI(identity) })).catch(
          () => {},
        );
      };
    },
    async close() {
      closed = true;
      scheduler.clearTimeout(restart);
      const client = await connecting?.catch(() => null);
      connecting = null;
      await client?.close();
    },
  };
}

/** The JSON of a tool result's text block (the text itself when it is not JSON). */
function resultValue(result: CallToolResult): Json {
  const text = result.content.find((c) => c.type === "text")?.text ?? "null";
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A tool failure as the error the service would have thrown: the kind an
 * `svc mcp` child names in `_meta`, or, from another MCP server, one guessed
 * from the message; a {@link NoAnswerError} when the child says its own
 * server did not answer.
 */
export function toolError(result: CallToolResult): ServiceError {
  const body = resultValue(result);
  const error = typeof body === "object" && body !== null && !Array.isArray(body) ? body.error : body;
  const message = typeof error === "string" ? error : JSON.stringify(body);
  const named = result._meta?.[ERROR_KIND_META];
  const kind = typeof named === "string" && Object.hasOwn(STATUS_OF_KIND, named)
    ? named as ErrorKind
    : kindFromMessage(message);
  // An svc mcp --url child whose own server did not answer says so by type, whatever the message says.
  return new (result._meta?.[NO_ANSWER_META] === true ? NoAnswerError : ServiceError)(kind, message);
}

function kindFromMessage(message: string): ErrorKind {
  if (message === "Constraint violation") return "constraint_violation";
  if (message === "Schema violation") return "schema_violation";
  if (/not found/i.test(message)) return "not_found";
  if (/too many|busy|queue/i.test(message)) return "too_many";
  return "bad_request";
}
