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

/**
 * Built-ins the project's own code imports, with the names it imports, loaded
 * on first use instead of at start. An ES module bundle hoists every external
 * import to its top, so `node:crypto` (the server's audit hashing) would be
 * loaded by every `svc console` start, where it costs about 50 ms of a 100 ms
 * budget. Importing a name not listed here fails the build ("No matching
 * export"), so the list cannot silently fall behind the code.
 */
const DEFERRED_BUILTINS: Readonly<Record<string, readonly string[]>> = {
  "node:crypto": ["createHash"],
};

/**
 * Resolves the project's imports of {@link DEFERRED_BUILTINS} to small modules
 * that forward each call to `process.getBuiltinModule` (synchronous, cached by
 * the runtime). npm packages keep their imports as they are.
 */
const deferBuiltins: esbuild.Plugin = {
  name: "defer-builtins",
  setup(build) {
    const names = Object.keys(DEFERRED_BUILTINS).map((name) => name.replace(/[.*+?^$()|[\]\\]/g, "\\$&"));
    build.onResolve(
      { filter: new RegExp(`^(${names.join("|")})$`) },
      (args) =>
        args.importer.includes("/node_modules/")
          ? undefined
          : { path: args.path, namespace: "deferred-builtin" },
    );
    build.onLoad({ filter: /.*/, namespace: "deferred-builtin" }, ({ path }) => ({
      loader: "js",
      contents: DEFERRED_BUILTINS[path].map((name) =>
        `export function ${name}(...args) { ` +
        `return globalThis.process.getBuiltinModule(${JSON.stringify(path)}).${name}(...args); }`
      ).join("\n"),
    }));
  },
};

/**
 * Built-ins npm packages import by bare name (the `postgres` client: `net`,
 * `tls`, `crypto`, …), with the named exports they use. Each becomes a module
 * whose default export reaches the built-in on first property access, so only
 * a server that opens PostgreSQL loads them (together about 70 ms at start).
 */
const PACKAGE_BUILTINS: Readonly<Record<string, readonly string[]>> = {
  net: [],
  tls: [],
  crypto: [],
  stream: [],
  os: [],
  fs: [],
  perf_hooks: ["performance"],
};

/** Resolves packages' bare imports of {@link PACKAGE_BUILTINS} to lazy stand-ins. */
const deferPackageBuiltins: esbuild.Plugin = {
  name: "defer-package-builtins",
  setup(build) {
    build.onResolve(
      { filter: new RegExp(`^(${Object.keys(PACKAGE_BUILTINS).join("|")})$`) },
      (args) =>
        args.importer.includes("/node_modules/")
          ? { path: args.path, namespace: "package-builtin" }
          : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "package-builtin" }, ({ path }) => {
      const load = `() => globalThis.process.getBuiltinModule(${JSON.stringify(`node:${path}`)})`;
      const lazy = (of: string) =>
        `new Proxy({}, { get: (_, key) => { const o = ${of}; const v = o[key]; ` +
        `return typeof v === "function" && !/^[A-Z]/.test(String(key)) ? v.bind(o) : v; } })`;
      return {
        loader: "js",
        contents: [
          `const load = ${load};`,
          `export default ${lazy("load()")};`,
          ...PACKAGE_BUILTINS[path].map((name) => `export const ${name} = ${lazy(`load().${name}`)};`),
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
    plugins: [deferBuiltins, deferPackageBuiltins, stubGatewayOidc, plainSpawn],
    minify: options.minify ?? true,
    legalComments: "none",
  });
}

if (import.meta.main) {
  const { outfile, bytes } = await buildCliBundle({ minify: !Deno.args.includes("--no-minify") });
  console.log(`wrote ${outfile} (${(bytes / 1024).toFixed(0)} KiB)`);
}
