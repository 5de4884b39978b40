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
 *
 * @module
 */
import type * as esbuild from "esbuild";
import { fileURLToPath } from "node:url";
import { type BundleFile, bundleFile } from "../../build/bundle_file.ts";
import { slimZod } from "../../build/slim_zod.ts";

/**
 * Built-ins loaded on first use instead of at start, by the specifier they are
 * imported as (the project's `node:` imports, packages' `node:` and bare
 * imports), with what is imported of each: the default export (an object),
 * functions (called, or constructed with `new`), and other named objects.
 *
 * An ES module bundle hoists every external import to its top, so each of
 * these would be loaded by every `svc console` start: `node:crypto` (the
 * server's audit hashing) about 50 ms, `node:http`, `node:https` and
 * `node:url` (the server's egress and web routes) with Deno's Node
 * compatibility layer under them about 35 ms, `node:process` and `node:stream`
 * (the MCP SDK's stdio transports), the `postgres` client's `net`, `tls`, …
 * about 70 ms; a console answers its first command in well under 100 ms
 * without any of them. Importing a name not listed here fails the build ("No
 * matching export"), so the list cannot silently fall behind the code.
 */
const LAZY_BUILTINS: Readonly<
  Record<string, { default?: true; functions?: readonly string[]; objects?: readonly string[] }>
> = {
  "node:crypto": { functions: ["createHash"] },
  "node:http": { default: true },
  "node:https": { default: true },
  "node:url": { functions: ["fileURLToPath"] },
  "node:process": { default: true },
  "node:stream": { functions: ["PassThrough"] },
  net: { default: true },
  tls: { default: true },
  crypto: { default: true },
  stream: { default: true },
  os: { default: true },
  fs: { default: true },
  perf_hooks: { default: true, objects: ["performance"] },
};

/**
 * Resolves the imports of {@link LAZY_BUILTINS} to small modules that reach
 * the built-in through `process.getBuiltinModule` (synchronous, cached by the
 * runtime) the first time a function is called or a member is read: a
 * function forwards its calls (and `new`), an object is a proxy whose
 * methods are bound to the built-in's.
 */
const lazyBuiltins: esbuild.Plugin = {
  name: "lazy-builtins",
  setup(build) {
    const names = Object.keys(LAZY_BUILTINS).map((name) => name.replace(/[.*+?^$()|[\]\\]/g, "\\$&"));
    build.onResolve(
      { filter: new RegExp(`^(${names.join("|")})$`) },
      (args) => ({ path: args.path, namespace: "lazy-builtin" }),
    );
    build.onLoad({ filter: /.*/, namespace: "lazy-builtin" }, ({ path }) => {
      const exports = LAZY_BUILTINS[path];
      const specifier = JSON.stringify(path.startsWith("node:") ? path : `node:${path}`);
      const lazy = (of: string) =>
        `new Proxy({}, { get: (_, key) => { const o = ${of}; const v = o[key]; ` +
        `return typeof v === "function" && !/^[A-Z]/.test(String(key)) ? v.bind(o) : v; } })`;
      return {
        loader: "js",
        contents: [
          `const load = () => globalThis.process.getBuiltinModule(${specifier});`,
          ...exports.default ? [`export default ${lazy("load()")};`] : [],
          ...(exports.functions ?? []).map((name) =>
            `export function ${name}(...args) { const f = load().${name}; ` +
            `return new.target ? new f(...args) : f(...args); }`
          ),
          ...(exports.objects ?? []).map((name) => `export const ${name} = ${lazy(`load().${name}`)};`),
        ].join("\n"),
      };
    });
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
}

const CLI_ENTRY = fileURLToPath(new URL("../main.ts", import.meta.url));

/** The default output file. */
export const DEFAULT_CLI_BUNDLE = fileURLToPath(new URL("../../dist/svc.js", import.meta.url));

/** Builds the CLI bundle. Throws with esbuild's messages on failure. */
export function buildCliBundle(options: CliBundleOptions = {}): Promise<BundleFile> {
  return bundleFile(CLI_ENTRY, options.outfile ?? DEFAULT_CLI_BUNDLE, {
    // "neutral" picks packages' ESM builds (yaml's "node" build is CommonJS that requires
    // built-ins by bare name, which an ES module bundle cannot do); `node:` built-ins stay
    // imports that Deno resolves.
    platform: "neutral",
    mainFields: ["module", "main"],
    external: ["node:*"],
    // The parts of zod nothing here calls (translations, fromJSONSchema, its compiler) stay out, as in the browser.
    plugins: [lazyBuiltins, slimZod, stubGatewayOidc, plainSpawn],
    minify: options.minify ?? true,
    legalComments: "none",
  });
}

if (import.meta.main) {
  const { outfile, bytes } = await buildCliBundle({ minify: !Deno.args.includes("--no-minify") });
  console.log(`wrote ${outfile} (${(bytes / 1024).toFixed(0)} KiB)`);
}
