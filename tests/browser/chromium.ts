/**
 * The one way browser tests start Chromium: {@link launchBrowser} returns a
 * launched playwright `Browser` (headless, fresh profile, no network chatter);
 * `await using browser = await launchBrowser();` closes it, and playwright then
 * removes the profile it created.
 *
 * Which Chromium ({@link findChromium}), first match wins:
 *
 * 1. `TEST_CHROMIUM`: the path of a Chromium or Chrome executable, or `npm` for
 *    the packaged one below.
 * 2. A system Chromium: `/usr/bin/chromium`, `/usr/bin/chromium-browser`,
 *    `/usr/bin/google-chrome-stable`, `/usr/bin/google-chrome`.
 * 3. The headless Chromium inside `npm:@sparticuz/chromium` (deno.json pins it),
 *    unpacked once into `.cache/sparticuz-chromium-<version>/`. The unpacking
 *    runs in a child process (the package unpacks into `os.tmpdir()`, which only
 *    a child's own `TMPDIR` can redirect) into a scratch directory that is then
 *    renamed into place, so parallel test workers never see half a binary.
 *    Where the host lacks the NSS libraries it needs, the copies the package
 *    ships (for Amazon Linux) are put on its `LD_LIBRARY_PATH`.
 *
 * Nothing here touches the network: the package is installed with the other
 * npm dependencies and Chromium only ever loads loopback pages.
 *
 * @module
 */
import sparticuz, { inflate } from "@sparticuz/chromium";
import { dirname, join } from "node:path";
import { fileURLToPath as fromFileUrl } from "node:url";
import { type Browser, chromium, type LaunchOptions } from "playwright-core";

/** Environment variable naming the Chromium to use (a path, or `npm` for the packaged one). */
export const CHROMIUM_ENV = "TEST_CHROMIUM";

/** System Chromium locations, in order of preference. */
export const SYSTEM_CHROMIUMS: readonly string[] = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome-stable",
  "/usr/bin/google-chrome",
];

/**
 * Flags for a closed network and a container: nothing phones home, no first-run
 * or sync machinery, no proxy lookups for loopback pages, /tmp instead of a
 * small /dev/shm. The sandbox is off (`chromiumSandbox: false`): CI runs as
 * root, where Chromium refuses it, and the packaged build has no sandbox helper;
 * the pages are the tests' own.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--no-default-browser-check",
  "--disable-default-apps",
  "--disable-domain-reliability",
  "--no-pings",
  "--no-proxy-server",
  "--disable-dev-shm-usage",
  "--disable-gpu",
];

/** A Chromium executable and where it was found. */
export interface ChromiumExecutable {
  path: string;
  source: "env" | "system" | "npm";
  /** The unpacked package directory (packaged Chromium only). */
  dir?: string;
}

const PROJECT_ROOT = fromFileUrl(new URL("../../", import.meta.url));
/** `…/@sparticuz/chromium/build/index.js`, resolved through deno.json. */
const PACKAGE_INDEX = fromFileUrl(import.meta.resolve("@sparticuz/chromium"));

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch {
    return false;
  }
}

/** Where {@link findChromium} looks; the defaults are the process environment and {@link SYSTEM_CHROMIUMS}. */
export interface FindOptions {
  env?: (name: string) => string | undefined;
  systemPaths?: readonly string[];
}

/** The Chromium browser tests use: `TEST_CHROMIUM`, else a system one, else the npm package's. */
export async function findChromium(options: FindOptions = {}): Promise<ChromiumExecutable> {
  const wanted = (options.env ?? ((name) => Deno.env.get(name)))(CHROMIUM_ENV)?.trim();
  if (wanted && wanted !== "npm") {
    if (!(await isFile(wanted))) {
      throw new Error(
        `${CHROMIUM_ENV}=${wanted}: no such file (set it to a Chromium executable or to 'npm')`,
      );
    }
    return { path: wanted, source: "env" };
  }
  if (wanted !== "npm") {
    for (const path of options.systemPaths ?? SYSTEM_CHROMIUMS) {
      if (await isFile(path)) return { path, source: "system" };
    }
  }
  const dir = await unpackPackagedChromium();
  return { path: join(dir, "chromium"), source: "npm", dir };
}

/** The version of the installed `@sparticuz/chromium`. */
async function packageVersion(): Promise<string> {
  const manifest = JSON.parse(await Deno.readTextFile(join(dirname(PACKAGE_INDEX), "..", "package.json")));
  return String(manifest.version);
}

/** Unpacks the packaged Chromium once (see the module notes); returns its directory. */
export async function unpackPackagedChromium(): Promise<string> {
  const cacheRoot = join(PROJECT_ROOT, ".cache");
  const dir = join(cacheRoot, `sparticuz-chromium-${await packageVersion()}`);
  if (await isFile(join(dir, "chromium"))) return dir;
  await Deno.mkdir(cacheRoot, { recursive: true });
  const scratch = await Deno.makeTempDir({ dir: cacheRoot, prefix: ".unpacking-" });
  try {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", fromFileUrl(import.meta.url), "--unpack"],
      cwd: PROJECT_ROOT,
      env: { TMPDIR: scratch, NO_COLOR: "1" },
      stdout: "null",
      stderr: "piped",
      signal: AbortSignal.timeout(120_000),
    }).output();
    if (code !== 0 || !(await isFile(join(scratch, "chromium")))) {
      throw new Error(
        `could not unpack @sparticuz/chromium (exit ${code}): ${new TextDecoder().decode(stderr)}`,
      );
    }
    // The package's fonts.conf names Lambda's directories; point fontconfig at ours.
    const fontsConf = [
      '<?xml version="1.0"?>',
      '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
      "<fontconfig>",
      `  <dir>${join(dir, "fonts")}</dir>`,
      `  <cachedir>${join(dir, "fonts-cache")}</cachedir>`,
      "</fontconfig>",
    ];
    await Deno.writeTextFile(join(scratch, "fonts.conf"), fontsConf.join("\n") + "\n");
    try {
      await Deno.rename(scratch, dir);
    } catch (err) {
      // Another worker finished first: its copy is complete (renamed whole), use it.
      if (!(await isFile(join(dir, "chromium")))) throw err;
    }
  } finally {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
  return dir;
}

/** Options of {@link launchBrowser}: playwright's, merged over the defaults here. */
export type BrowserOptions = Omit<LaunchOptions, "executablePath">;

/** Launches headless Chromium ({@link findChromium}) with {@link CHROMIUM_ARGS}; close it when done. */
export async function launchBrowser(options: BrowserOptions = {}): Promise<Browser> {
  const executable = await findChromium();
  const launch = (env?: Record<string, string>) =>
    chromium.launch({
      headless: true,
      chromiumSandbox: false,
      timeout: 60_000,
      ...options,
      executablePath: executable.path,
      args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
      env: env ? { ...Deno.env.toObject(), ...options.env, ...env } : options.env,
    });
  if (!executable.dir) return await launch();
  const env = { FONTCONFIG_FILE: join(executable.dir, "fonts.conf") };
  try {
    return await launch(env);
  } catch (err) {
    if (!/error while loading shared libraries/.test(String(err))) throw err;
    // A host without libnss3 & co.: use the copies the package ships.
    const libs = join(executable.dir, "al2023", "lib");
    const current = Deno.env.get("LD_LIBRARY_PATH");
    return await launch({ ...env, LD_LIBRARY_PATH: current ? `${libs}:${current}` : libs });
  }
}

// `deno run -A tests/browser/chromium.ts --unpack` with TMPDIR set: the child
// process of unpackPackagedChromium. The package inflates into os.tmpdir().
if (import.meta.main && Deno.args[0] === "--unpack") {
  const bin = join(dirname(PACKAGE_INDEX), "..", "bin");
  await sparticuz.executablePath(bin);
  await inflate(join(bin, "al2023.tar.br"));
}
