/**
 * The MCP tools (SPEC.md "MCP tools"): the MCP bindings of the operations
 * (engine/operations/), each listed with its title, annotations and the input
 * and output schemas generated from the operation's declaration. Tools whose
 * binding is `available` only on some hosts (generation with a provider,
 * `pair_browser` in remote-with-browser mode) are listed only there.
 *
 * @module
 */
import type { z } from "zod";
import { inputMembers } from "../engine/operations/input.ts";
import { type JsonSchema, toJsonSchema } from "../engine/operations/json_schema.ts";
import { OPERATIONS } from "../engine/operations/mod.ts";
import type { AnyOperation, HostFeatures, McpBinding } from "../engine/operations/operation.ts";
import { FAILURE_BODY } from "../engine/operations/schemas.ts";

/** MCP tool annotations (all four hints are always given). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
}

/** One tool: its listing and the operation behind it. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  /** Declared only by tools that always return an object. */
  outputSchema?: JsonSchema;
  annotations: ToolAnnotations;
  op: AnyOperation;
  // deno-lint-ignore no-explicit-any
  binding: McpBinding<any, any>;
  /** The arguments the tool takes. */
  args: string[];
}

/** A declared output: the success shape, or a failure body (MCP clients validate failures too). */
function outputSchema(success: z.ZodType): JsonSchema | undefined {
  const schema = toJsonSchema(success);
  if (schema.type !== "object") return undefined;
  return { type: "object", anyOf: [schema, toJsonSchema(FAILURE_BODY())] };
}

/**
 * A tool of an operation. Its JSON Schemas are generated on first read (the
 * first `tools/list`), not when the tool is declared: generating all of them
 * took about 20 ms of every `svc mcp` start, before `initialize` was answered.
 */
function toolOf(op: AnyOperation): ToolDefinition {
  const binding = op.mcp!;
  const args = [...(binding.args ?? inputMembers(op))];
  const read = binding.kind === "read";
  let input: JsonSchema | undefined;
  let output: { schema: JsonSchema | undefined } | undefined;
  return {
    name: binding.tool,
    title: binding.title,
    description: binding.description ?? op.summary,
    get inputSchema() {
      if (!input) {
        const picked = (op.input as z.ZodObject).pick(
          Object.fromEntries(args.map((a) => [a, true])) as never,
        );
        input = toJsonSchema(picked, "input");
        input.required ??= [];
        // A call refuses arguments outside `args` (checkInput's strictFor), so the schema says so.
        input.additionalProperties = false;
      }
      return input;
    },
    get outputSchema() {
      if (!output) {
        const declared = binding.output === undefined ? op.output : binding.output?.();
        output = { schema: declared ? outputSchema(declared) : undefined };
      }
      return output.schema;
    },
    annotations: {
      readOnlyHint: read,
      destructiveHint: binding.kind === "destructive",
      idempotentHint: binding.idempotent ?? read,
      openWorldHint: false,
    },
    op,
    binding,
    args,
  };
}

/**
 * The object argument of `tool` whose schema lists `member`: where an agent
 * meant an unknown top-level argument to go (`expectedVersion` inside
 * `evolution`, a spec's `id` inside `spec`).
 */
export function argumentHolding(tool: ToolDefinition, member: string): string | undefined {
  const args = (tool.inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.keys(args).find((arg) => Object.hasOwn(args[arg].properties ?? {}, member));
}

/** Every declared tool, in listing order (some only on hosts with a feature: see {@link toolsFor}). */
export const TOOLS: readonly ToolDefinition[] = OPERATIONS.filter((op) => op.mcp).map(toolOf);

/** What a host without optional features has. */
export const NO_FEATURES: HostFeatures = Object.freeze({ generation: false, pairing: false });

/** The tools a host offers: those whose binding is available there. */
export function toolsFor(host: HostFeatures = NO_FEATURES): readonly ToolDefinition[] {
  return TOOLS.filter((tool) => tool.binding.available?.(host) ?? true);
}
