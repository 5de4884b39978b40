/**
 * An esbuild plugin for browser bundles: the code that builds the
 * operations' zod schemas stays out, as zod itself does (build/no_zod.ts). In
 * a page nothing reads those schemas (the invokers hand inputs to the service
 * as they are), so the functions that would build them, the builders of
 * `lazySchema(…)` and `component(…)` and the `input`/`output` members of the
 * operation declarations, return zod's stand-in without building anything,
 * and what only they used falls away; so do the declarations' `mcp` and
 * `console` members, which only the MCP and console surfaces read (together
 * about 3.3 KB of the engine bundle gzipped). The declaration modules (engine/operations/) are compiled to
 * JavaScript here, their documenting strings emptied first (build/no_docs.ts),
 * then parsed, so only those function bodies change.
 *
 * @module
 */
import { parse } from "acorn";
import { simple } from "acorn-walk";
import * as esbuild from "esbuild";
import { withoutDocs } from "./no_docs.ts";

/** The modules that declare operations and their schemas (a test module is never bundled). */
const DECLARATIONS = /[\\/]engine[\\/]operations[\\/][a-z_]+\.ts$/;

/** What a builder's body becomes: the stand-in that zod resolves to in browser bundles. */
const INERT = "__inertZod";

/** The calls whose last argument builds a schema. */
const BUILDER_CALLS = new Set(["lazySchema", "component"]);

/** The members of an operation declaration that build a schema. */
const BUILDER_MEMBERS = new Set(["input", "output"]);

/** The members of an operation declaration only other surfaces read (mcp/tools.ts, cli/): left out whole. */
const OTHER_SURFACES = new Set(["mcp", "console"]);

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
}

const isFunction = (node: Node | undefined): node is Node =>
  node?.type === "ArrowFunctionExpression" || node?.type === "FunctionExpression";

/**
 * JavaScript `source` with the bodies of its schema builders replaced by the
 * zod stand-in (imported as {@link INERT}), and how many were replaced.
 */
export function withoutSchemaBuilders(source: string): { source: string; replaced: number } {
  const builders: Node[] = [];
  const surfaces: Node[] = [];
  const tree = parse(source, { ecmaVersion: "latest", sourceType: "module" });
  simple(tree, {
    CallExpression(node) {
      const call = node as unknown as Node;
      const last = call.arguments?.at(-1);
      if (call.callee?.type === "Identifier" && BUILDER_CALLS.has(call.callee.name!) && isFunction(last)) {
        builders.push(last);
      }
    },
    Property(node) {
      const member = node as unknown as Node;
      if (member.computed || member.key?.type !== "Identifier") return;
      if (BUILDER_MEMBERS.has(member.key.name!) && isFunction(member.value)) builders.push(member.value);
      if (OTHER_SURFACES.has(member.key.name!) && member.value?.type === "ObjectExpression") {
        surfaces.push(member.value);
      }
    },
  });
  // Outermost first; a builder inside another one goes with it.
  builders.sort((a, b) => a.start - b.start || b.end - a.end);
  const outer = builders.filter((node, i) =>
    !builders.slice(0, i).some((o) => o.start <= node.start && node.end <= o.end)
  );
  const edits = [
    ...outer.map((fn) => ({ node: fn.body!, text: fn.expression ? INERT : `{ return ${INERT}; }` })),
    ...surfaces.filter((value) => !outer.some((fn) => fn.start <= value.start && value.end <= fn.end))
      .map((value) => ({ node: value, text: "void 0" })),
  ].sort((a, b) => a.node.start - b.node.start);
  const pieces: string[] = [];
  let from = 0;
  for (const { node, text } of edits) {
    pieces.push(source.slice(from, node.start), text);
    from = node.end;
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
