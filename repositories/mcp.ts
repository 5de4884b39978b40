/**
 * The `mcp` repository transport: a child process speaking MCP over stdio
 * (another `svc mcp`, or any server offering the same tools), reached through
 * the official SDK client. Specs are read with `get_spec`, published with
 * `create_model`, links go through `mutate` and `get_state`, and watches
 * subscribe to the `svc://state/<id>` resource. The child starts on first use
 * and again on the next use after it exits.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { type CallToolResult, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  publicationRefused,
  type Repository,
  type RepositoryClass,
} from "../engine/composition/repository.ts";
import { type ErrorKind, ServiceError, STATUS_OF_KIND } from "../engine/errors.ts";
import type { Json } from "../engine/json/value.ts";
import type { ModelSpec } from "../engine/model/types.ts";
import { SERVICE_NAME, SERVICE_VERSION } from "../engine/version.ts";
import { valueAt } from "../engine/json/document.ts";
import { ERROR_KIND_META } from "../mcp/results.ts";
import { upstreamRefusal } from "./upstream_refusal.ts";

/** Options of {@link mcpRepository}. */
export interface McpRepositoryOptions {
  id: string;
  repoClass: RepositoryClass;
  /** The command and its arguments. */
  argv: string[];
  /** Reaches the child as `SVC_API_KEY`. */
  credential: string | null;
  /** Receives the child's diagnostics (its stderr), line by line. */
  log?: (line: string) => void;
}

const STATE_URI = (id: string) => `svc://state/${id}`;

/** A repository behind an MCP server started as a child process. */
export function mcpRepository(options: McpRepositoryOptions): Repository {
  let connecting: Promise<Client> | null = null;
  const watchers = new Map<string, Set<(paths: string[]) => void>>();

  const connect = (): Promise<Client> =>
    connecting ??= (async () => {
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
      const client = new Client({ name: `${SERVICE_NAME} repository client`, version: SERVICE_VERSION });
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, ({ params }) => {
        const id = params.uri.startsWith("svc://state/") ? params.uri.slice("svc://state/".length) : null;
        // The notification names no paths: every watched read of the model reads again.
        for (const onChange of (id && watchers.get(id)) || []) onChange(["$"]);
      });
      transport.onclose = () => {
        connecting = null;
      };
      try {
        await client.connect(transport);
      } catch (err) {
        connecting = null;
        throw new ServiceError(
          "internal",
          `Repository '${options.id}' did not start: ${(err as Error).message}`,
        );
      }
      for (const id of watchers.keys()) await client.subscribeResource({ uri: STATE_URI(id) });
      return client;
    })();

  const call = async (name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<Json> => {
    const client = await connect();
    let result: CallToolResult;
    try {
      result = await client.callTool({ name, arguments: args }, undefined, { signal }) as CallToolResult;
    } catch (err) {
      throw new ServiceError(
        "internal",
        `Repository '${options.id}' failed on ${name}: ${(err as Error).message}`,
      );
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
        return await call("get_spec", { id: identity }) as unknown as ModelSpec;
      } catch (err) {
        // A refusal of our credential (by the server a remote `svc mcp` child talks to) is no miss.
        const refused = upstreamRefusal(options.id, err);
        if (refused) throw refused;
        return null;
      }
    },
    async publish(spec) {
      try {
        await call("create_model", { spec });
      } catch (err) {
        throw upstreamRefusal(options.id, err) ?? publicationRefused(options.id, err);
      }
    },
    async write(identity, path, value, signal) {
      await linkCall("mutate", { id: identity, mutations: { [path]: value } }, signal);
      return await linkCall("get_state", { id: identity }, signal);
    },
    async read(identity, path, signal) {
      return valueAt(await linkCall("get_state", { id: identity, paths: [path] }, signal), path);
    },
    async watch(identity, onChange) {
      const listeners = watchers.get(identity) ?? new Set();
      const first = listeners.size === 0;
      listeners.add(onChange);
      watchers.set(identity, listeners);
      if (first) await (await connect()).subscribeResource({ uri: STATE_URI(identity) });
      return () => {
        listeners.delete(onChange);
        if (listeners.size) return;
        watchers.delete(identity);
        void connecting?.then((client) => client.unsubscribeResource({ uri: STATE_URI(identity) })).catch(
          () => {},
        );
      };
    },
    async close() {
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
 * from the message.
 */
export function toolError(result: CallToolResult): ServiceError {
  const body = resultValue(result);
  const error = typeof body === "object" && body !== null && !Array.isArray(body) ? body.error : body;
  const message = typeof error === "string" ? error : JSON.stringify(body);
  const named = result._meta?.[ERROR_KIND_META];
  const kind = typeof named === "string" && Object.hasOwn(STATUS_OF_KIND, named)
    ? named as ErrorKind
    : kindFromMessage(message);
  return new ServiceError(kind, message);
}

function kindFromMessage(message: string): ErrorKind {
  if (message === "Constraint violation") return "constraint_violation";
  if (message === "Schema violation") return "schema_violation";
  if (/not found/i.test(message)) return "not_found";
  if (/too many|busy|queue/i.test(message)) return "too_many";
  return "bad_request";
}
