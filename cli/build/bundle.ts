/**
 * `deno task bundle`: bundles the CLI (cli/main.ts) with esbuild into one
 * self-contained ES module, `dist/svc.js`, that `deno run` starts anywhere:
 *
 *     deno run -A dist/svc.js console
 *     deno run -A --unstable-kv dist/svc.js serve     # Deno KV storage needs the flag
 *
 * npm packages are bundled in (resolved from the project's node_modules), so
 * the file needs no import map, no `node_modules` and no network at start;
 * only `node:` built-ins stay imports (or requires), which Deno provides. Code splitting is
 * off, so the on-demand imports of `serve` and `mcp` are inlined as lazily
 * initialised modules: their top-level code runs only when the command is used.
 * Last, the functions a console's first command and an MCP session's start
 * run are found by running the bundle with coverage, and put in parentheses so
 * that V8 compiles them with the file and Deno's code cache keeps them
 * (build/eager_compile.ts).
 *
 * @module
 */
import type * as esbuild from "esbuild";
import { fileURLToPath } from "node:url";
import { type BundleFile, bundleFile } from "../../build/bundle_file.ts";
import { parenthesizeFunctions, startupFunctions, type StartupScenario } from "../../build/eager_compile.ts";
import { slimZod } from "../../build/slim_zod.ts";

/**
 * What a module loaded on first use is imported for: its default export (an
 * object, or a function called or constructed with `new`), functions (called
 * or constructed), and other named objects. Importing a name not listed fails
 * the build ("No matching export"), so a list cannot silently fall behind the code.
 */
interface LazyExports {
  default?: "object" | "function";
  functions?: readonly string[];
  objects?: readonly string[];
}

/**
 * Built-ins loaded on first use instead of at start, by the specifier they are
 * imported as (the project's `node:` imports, packages' `node:` and bare
 * imports), with what is imported of each.
 *
 * An ES module bundle hoists every external import to its top, so each of
 * these would be loaded by every `svc console` start: `node:crypto` (the
 * server's audit hashing) about 50 ms, `node:http`, `node:https` and
 * `node:url` (the server's egress and web routes) with Deno's Node
 * compatibility layer under them about 35 ms, `node:process` and `node:stream`
 * (the MCP SDK's stdio transports), the `postgres` client's `net`, `tls`, …
 * about 70 ms; a console answers its first command in well under 100 ms
 * without any of them.
 */
const LAZY_BUILTINS: Readonly<Record<string, LazyExports>> = {
  "node:crypto": { functions: ["createHash"] },
  "node:http": { default: "object" },
  "node:https": { default: "object" },
  "node:url": { functions: ["fileURLToPath"] },
  "node:process": { default: "object" },
  "node:stream": { functions: ["PassThrough"] },
  net: { default: "object" },
  tls: { default: "object" },
  crypto: { default: "object" },
  stream: { default: "object" },
  os: { default: "object" },
  fs: { default: "object" },
  perf_hooks: { default: "object", objects: ["performance"] },
};

/**
 * Bundled packages the project's own modules import that are evaluated on
 * first use instead of at start: the spec compiler's (JSON Schema validation,
 * JSONata, RE2) and the runtime's JSON Patch, which a console's first
 * `list-models` and an MCP session's first `tools/list` do not need. Bundled
 * in as always; only their top-level code (about 15 ms together, JSON Patch
 * 2–3 ms) waits for the first call.
 */
const LAZY_PACKAGES: Readonly<Record<string, LazyExports>> = {
  "ajv/dist/2020.js": { functions: ["Ajv2020"] },
  "ajv-formats": { default: "object" },
  // The spec compiler's format keywords (its module requires the whole of ajv, draft-07) and format table.
  "ajv-formats/dist/limit.js": { objects: ["formatLimitDefinition"] },
  "ajv-formats/dist/formats.js": { objects: ["fullFormats"] },
  jsonata: { default: "function" },
  re2js: { objects: ["RE2JS"] },
  "fast-json-patch": { default: "object" },
};

/**
 * A module forwarding `exports` to the module that `load` (JavaScript
 * source) returns, loading it the first time a function is called or a
 * member is read: a function forwards its calls (and `new`), an object is a
 * proxy whose methods are bound to the real module's, and whose keys are the
 * real object's (`in`, `Object.keys`, a spread: ajv copies a keyword
 * definition so).
 */
function forwardingModule(load: string, exports: LazyExports): string {
  // A key reported that the proxy's empty target lacks must be configurable (a Proxy invariant).
  const lazy = (of: string) =>
    `new Proxy({}, { get: (_, key) => { const o = ${of}; const v = o[key]; ` +
    `return typeof v === "function" && !/^[A-Z]/.test(String(key)) ? v.bind(o) : v; }, ` +
    `has: (_, key) => key in ${of}, ownKeys: () => Reflect.ownKeys(${of}), ` +
    `getOwnPropertyDescriptor: (_, key) => { const d = Reflect.getOwnPropertyDescriptor(${of}, key); ` +
    `return d && { ...d, configurable: true }; } })`;
  const forward = (name: string, of: string) =>
    `function ${name}(...args) { const f = ${of}; return new.target ? new f(...args) : f(...args); }`;
  // The default export as an `import x from` sees it: an ES module's `default`, else the CommonJS exports.
  const defaultOf = "(m => m && m.__esModule ? m.default : m)(load())";
  return [
    `let loaded; const load = () => loaded ??= ${load};`,
    ...exports.default === "object" ? [`export default ${lazy(defaultOf)};`] : [],
    ...exports.default === "function" ? [`export default ${forward("lazyDefault", defaultOf)}`] : [],
    ...(exports.functions ?? []).map((name) => `export ${forward(name, `load().${name}`)}`),
    ...(exports.objects ?? []).map((name) => `export const ${name} = ${lazy(`load().${name}`)};`),
  ].join("\n");
}

function specifierFilter(specifiers: readonly string[]): RegExp {
  return new RegExp(`^(${specifiers.map((name) => name.replace(/[.*+?^$()|[\]\\]/g, "\\$&")).join("|")})$`);
}

/**
 * Resolves the imports of {@link LAZY_BUILTINS} to forwarding modules that
 * reach the built-in through `process.getBuiltinModule` (synchronous, cached
 * by the runtime).
 */
const lazyBuiltins: esbuild.Plugin = {
  name: "lazy-builtins",
  setup(build) {
    build.onResolve(
      { filter: specifierFilter(Object.keys(LAZY_BUILTINS)) },
      (args) => ({ path: args.path, namespace: "lazy-builtin" }),
    );
    build.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, ({ path }) => {
      const specifier = JSON.stringify(path.startsWith("node:") ? path : `node:${path}`);
      return {
        loader: "js",
        contents: forwardingModule(`globalThis.process.getBuiltinModule(${specifier})`, LAZY_BUILTINS[path]),
      };
    });
  },
};

/**
 * Resolves the project's imports of {@link LAZY_PACKAGES} to forwarding
 * modules that `require` the package on first use: esbuild turns that
 * `require` into a call of the package's module initialiser, so the package
 * is bundled as before but evaluated only then. Imports from inside
 * node_modules are left as they are.
 */
const lazyPackages: esbuild.Plugin = {
  name: "lazy-packages",
  setup(build) {
    build.onResolve(
      { filter: specifierFilter(Object.keys(LAZY_PACKAGES)) },
      (args) =>
        /[\\/]node_modules[\\/]/.test(args.importer) || args.namespace === "lazy-package"
          ? undefined
          : { path: args.path, namespace: "lazy-package", pluginData: { resolveDir: args.resolveDir } },
    );
    build.onLoad({ filter: /.*/, namespace: "lazy-package" }, ({ path, pluginData }) => ({
      loader: "js",
      resolveDir: pluginData.resolveDir,
      contents: forwardingModule(`require(${JSON.stringify(path)})`, LAZY_PACKAGES[path]),
    }));
  },
};

/**
 * The `ai` library imports the Vercel AI Gateway, whose OIDC helper
 * (`@vercel/oidc`) is CommonJS that requires Node built-ins by bare name, which
 * an ES module bundle cannot do. The service never uses the gateway (each
 * provider kind has its own client), so the helper is replaced by a stub that
 * says so if it is ever called.
 */
const stubGatewayOidc: esbuild.Plugin = {
  name: "stub-gateway-oidc",
  setup(build) {
    build.onResolve({ filter: /^@vercel\/oidc$/ }, (args) => ({ path: args.path, namespace: "stub-oidc" }));
    build.onLoad({ filter: /.*/, namespace: "stub-oidc" }, () => ({
      loader: "js",
      contents: "export function getContext() { return {}; }\n" +
        "export async function getVercelOidcToken() { throw new Error('the Vercel AI Gateway is not used'); }",
    }));
  },
};

/**
 * The MCP SDK's stdio client (the `mcp` repository transport) starts its
 * child through `cross-spawn`, CommonJS that requires Node built-ins by bare
 * name, which an ES module bundle cannot do. `cross-spawn` only adds Windows
 * command resolution to `child_process.spawn`, which the bundle calls directly.
 */
const plainSpawn: esbuild.Plugin = {
  name: "plain-spawn",
  setup(build) {
    build.onResolve({ filter: /^cross-spawn$/ }, (args) => ({ path: args.path, namespace: "plain-spawn" }));
    build.onLoad({ filter: /.*/, namespace: "plain-spawn" }, () => ({
      loader: "js",
      // Loaded on first use, like the other built-ins: only an `mcp` repository starts a child.
      contents: 'export default (...args) => globalThis.process.getBuiltinModule("node:child_process")' +
        ".spawn(...args);",
    }));
  },
};

/** Options of {@link buildCliBundle}. */
export interface CliBundleOptions {
  /** Where to write the bundle; defaults to `dist/svc.js` in the project. */
  outfile?: string;
  /** Minify (default true: a smaller file parses faster at every cold start). */
  minify?: boolean;
  /**
   * Compile the functions the console's and MCP's first answers run when the
   * bundle is compiled, so Deno's code cache holds them (default true;
   * build/eager_compile.ts).
   */
  eager?: boolean;
}

/** An agent's MCP session start over stdio: the handshake, then its tool list. */
export const MCP_AGENT_START: readonly Record<string, unknown>[] = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "svc", version: "1" } },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 2, method: "tools/list" },
];

/**
 * The starts profiled for {@link CliBundleOptions.eager}: a console's first
 * command, and an agent's MCP session up to its tool list.
 */
const STARTUP_SCENARIOS: readonly StartupScenario[] = [
  { args: ["console"], stdin: '{"cmd":"list-models"}\n' },
  { args: ["mcp"], stdin: MCP_AGENT_START.map((message) => JSON.stringify(message) + "\n").join("") },
];

const CLI_ENTRY = fileURLToPath(new URL("../main.ts", import.meta.url));

/** The default output file. */
export const DEFAULT_CLI_BUNDLE = fileURLToPath(new URL("../../dist/svc.js", import.meta.url));

/** A CLI bundle written. */
export interface CliBundle extends BundleFile {
  /** How many start-up functions are compiled eagerly (0 when built without). */
  eagerFunctions: number;
}

/** Where `source`'s first character outside ASCII is, -1 when there is none. */
export function firstNonAscii(source: string): number {
  return source.search(/[\u0080-\uffff]/);
}

/**
 * Throws when the minified bundle holds a character outside ASCII. esbuild escapes
 * them in strings, templates and names, but not in a regex literal. Deno hands
 * V8 an ASCII source as it is; any other is copied into V8's heap first, a
 * copy of the whole 2.5 MiB bundle at every start (about 3 MB of heap and 7 ms
 * of CPU time per console start, README "Performance").
 */
function checkAscii(source: string): void {
  const at = firstNonAscii(source);
  if (at < 0) return;
  const escape = `\\u${source.charCodeAt(at).toString(16).padStart(4, "0")}`;
  throw new Error(
    `the CLI bundle is not ASCII: '${source.slice(Math.max(0, at - 60), at + 20)}' holds '${source[at]}' ` +
      `(write it as ${escape} in the source, as a regex allows)`,
  );
}

/** Builds the CLI bundle. Throws with esbuild's messages, or a failed profiling run's, on failure. */
export async function buildCliBundle(options: CliBundleOptions = {}): Promise<CliBundle> {
  const built = await bundleFile(CLI_ENTRY, options.outfile ?? DEFAULT_CLI_BUNDLE, {
    // "neutral" picks packages' ESM builds (yaml's "node" build is CommonJS that requires
    // built-ins by bare name, which an ES module bundle cannot do); `node:` built-ins stay
    // imports that Deno resolves.
    platform: "neutral",
    mainFields: ["module", "main"],
    external: ["node:*"],
    // The parts of zod nothing here calls (translations, fromJSONSchema, its compiler) stay out, as in the browser.
    plugins: [lazyBuiltins, lazyPackages, slimZod, stubGatewayOidc, plainSpawn],
    minify: options.minify ?? true,
    legalComments: "none",
  });
  const bundled = await Deno.readTextFile(built.outfile);
  // Unminified (to read), comments stay, in whatever characters they were written.
  if (options.minify ?? true) checkAscii(bundled);
  if (options.eager === false) return { ...built, eagerFunctions: 0 };
  const starts = await startupFunctions(built.outfile, STARTUP_SCENARIOS);
  const { source, wrapped } = parenthesizeFunctions(bundled, starts);
  await Deno.writeTextFile(built.outfile, source);
  return { outfile: built.outfile, bytes: (await Deno.stat(built.outfile)).size, eagerFunctions: wrapped };
}

if (import.meta.main) {
  const { outfile, bytes, eagerFunctions } = await buildCliBundle({
    minify: !Deno.args.includes("--no-minify"),
  });
  console.log(
    `wrote ${outfile} (${
      (bytes / 1024).toFixed(0)
    } KiB; ${eagerFunctions} start-up functions compiled eagerly)`,
  );
}
