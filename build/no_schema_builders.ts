/**
 * An esbuild plugin for browser bundles: the code that builds the
 * operations' zod schemas stays out, as zod itself does (build/no_zod.ts). In
 * a page nothing reads those schemas (the invokers hand inputs to the service
 * as they are), so the functions that would build them, the builders of
 * `lazySchema(…)` and `component(…)` and the `input`/`output` members of the
 * operation declarations, return zod's stand-in without building anything,
 * and what only they used falls away; so do the declarations' `mcp` and
 * `console` members, which only the MCP and console surfaces read (together
 * about 3.3 KB of the engine bundle gzipped), and the members of the REST
 * bindings only the server reads (the OpenAPI document's `errors`, `tag` and
 * `operationId`, the route's `present`, `presented`, `location` and
 * `doneOnFailure`; 0.5 KB): a page's remote invoker reads the method, path,
 * query, headers, body, status, response and `decode`. The declaring calls
 * (`lazySchema(…)`, `component(…)`, `publishedAs(…)`) and zod's (`z.registry()`)
 * are marked pure, so esbuild drops those whose schema nothing left reads (0.3 KB):
 * what they record besides (the OpenAPI components) only the hosts read. The declaration modules (engine/operations/) are compiled to
 * JavaScript here, their documenting strings emptied first (build/no_docs.ts),
 * then parsed, so only those function bodies change.
 *
 * @module
 */
import { parse } from "acorn";
import { ancestor } from "acorn-walk";
import * as esbuild from "esbuild";
import { withoutDocs } from "./no_docs.ts";

/** The modules that declare operations and their schemas (a test module is never bundled). */
const DECLARATIONS = /[\\/]engine[\\/]operations[\\/][a-z_]+\.ts$/;

/** What a builder's body becomes: the stand-in that zod resolves to in browser bundles. */
const INERT = "__inertZod";

/** The calls whose last argument builds a schema. */
const BUILDER_CALLS = new Set(["lazySchema", "component"]);

/** The calls that declare a schema: pure in the bundle, as zod's are (on the stand-in). */
const DECLARING_CALLS = new Set([...BUILDER_CALLS, "publishedAs"]);

/** esbuild's mark of a call it may drop when its value goes unused. */
const PURE = "/* @__PURE__ */ ";

/** The members of an operation declaration that build a schema. */
const BUILDER_MEMBERS = new Set(["input", "output"]);

/** The members of an operation declaration only other surfaces read (mcp/tools.ts, cli/): left out whole. */
const OTHER_SURFACES = new Set(["mcp", "console"]);

/** The members of a REST binding (an operation's `rest`) only the server reads (server/routes/operations.ts). */
const SERVER_MEMBERS = new Set([
  "errors",
  "tag",
  "operationId",
  "present",
  "presented",
  "location",
  "doneOnFailure",
]);

/** A node of acorn's tree, as far as this module reads it. */
interface Node {
  type: string;
  start: number;
  end: number;
  body?: Node;
  expression?: boolean;
  callee?: Node;
  name?: string;
  arguments?: Node[];
  key?: Node;
  value?: Node;
  computed?: boolean;
  object?: Node;
}

const isFunction = (node: Node | undefined): node is Node =>
  node?.type === "ArrowFunctionExpression" || node?.type === "FunctionExpression";

/**
 * Whether the property last in `ancestors` is a member of a REST binding: of the
 * object that is an operation's `rest`, or an element of it.
 */
function isBindingMember(ancestors: Node[]): boolean {
  const holder = ancestors.at(-3);
  const rest = holder?.type === "ArrayExpression" ? ancestors.at(-4) : holder;
  return ancestors.at(-2)?.type === "ObjectExpression" && rest?.type === "Property" &&
    rest.key?.name === "rest";
}

/** Whether `call` declares a schema or is zod's (`z.…(…)`). */
const isDeclaring = (call: Node): boolean =>
  call.callee?.type === "Identifier"
    ? DECLARING_CALLS.has(call.callee.name!)
    : call.callee?.type === "MemberExpression" && call.callee.object?.name === "z";

/**
 * JavaScript `source` with the bodies of its schema builders replaced by the
 * zod stand-in (imported as {@link INERT}), its declaring calls marked
 * {@link PURE}, and how many builders were replaced.
 */
export function withoutSchemaBuilders(source: string): { source: string; replaced: number } {
  const builders: Node[] = [];
  const surfaces: Node[] = [];
  const declaring: Node[] = [];
  const tree = parse(source, { ecmaVersion: "latest", sourceType: "module" });
  ancestor(tree, {
    CallExpression(node) {
      const call = node as unknown as Node;
      const last = call.arguments?.at(-1);
      if (isDeclaring(call)) declaring.push(call);
      if (call.callee?.type === "Identifier" && BUILDER_CALLS.has(call.callee.name!) && isFunction(last)) {
        builders.push(last);
      }
    },
    Property(node, _, ancestors) {
      const member = node as unknown as Node;
      if (member.computed || member.key?.type !== "Identifier") return;
      const name = member.key.name!;
      if (BUILDER_MEMBERS.has(name) && isFunction(member.value)) builders.push(member.value);
      if (OTHER_SURFACES.has(name) && member.value?.type === "ObjectExpression") surfaces.push(member.value);
      if (SERVER_MEMBERS.has(name) && isBindingMember(ancestors as unknown as Node[])) {
        surfaces.push(member.value!);
      }
    },
  });
  // Outermost only: what lies inside a replaced builder or a left-out member goes with it.
  const within = (node: Node, outside: Node[]) =>
    outside.some((o) => o !== node && o.start <= node.start && node.end <= o.end);
  const kept = (node: Node) => !within(node, builders) && !within(node, surfaces);
  const outer = builders.filter(kept);
  const edits = [
    ...outer.map((fn) => ({ ...fn.body!, text: fn.expression ? INERT : `{ return ${INERT}; }` })),
    ...surfaces.filter(kept).map((value) => ({ ...value, text: "void 0" })),
    ...declaring.filter(kept).map((call) => ({ start: call.start, end: call.start, text: PURE })),
  ].sort((a, b) => a.start - b.start);
  const pieces: string[] = [];
  let from = 0;
  for (const { start, end, text } of edits) {
    pieces.push(source.slice(from, start), text);
    from = end;
  }
  pieces.push(source.slice(from));
  const text = pieces.join("");
  return {
    source: outer.length ? `import { z as ${INERT} } from "zod";\n${text}` : text,
    replaced: outer.length,
  };
}

/** The plugin; list it before {@link noDocs}, whose work it includes for these modules. */
export const noSchemaBuilders: esbuild.Plugin = {
  name: "no-schema-builders",
  setup(build) {
    build.onLoad({ filter: DECLARATIONS }, async ({ path }) => {
      const { code } = await esbuild.transform(withoutDocs(await Deno.readTextFile(path)), {
        loader: "ts",
        format: "esm",
        target: "es2022",
      });
      return { contents: withoutSchemaBuilders(code).source, loader: "js" };
    });
  },
};
