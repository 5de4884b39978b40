/**
 * `deno task compile`: the single-file `svc` binary with `deno compile`, for
 * the host (`dist/svc`) and the usual release targets
 * (`dist/svc-<target>`, `.exe` on Windows). The binary is started with every
 * permission and Deno KV enabled, so `svc serve` can use its default storage.
 *
 *     deno task compile              # host and every release target
 *     deno task compile -- --host    # the host binary only
 *
 * `deno compile` downloads the runtime of each target on first use (from
 * dl.deno.land); without network access that download fails, and the error
 * says so (see {@link isRuntimeDownloadFailure}).
 *
 * @module
 */
import { fileURLToPath } from "node:url";

/** The release targets besides the host. */
export const RELEASE_TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;

const projectRoot = fileURLToPath(new URL("../..", import.meta.url));
const CLI_ENTRY = fileURLToPath(new URL("../main.ts", import.meta.url));

/** The output file of a target (`undefined`: the host). */
export function binaryPath(target?: string, dir = `${projectRoot}dist`): string {
  if (target === undefined) return `${dir}/svc${Deno.build.os === "windows" ? ".exe" : ""}`;
  return `${dir}/svc-${target}${target.includes("windows") ? ".exe" : ""}`;
}

/** What one `deno compile` run did. */
export interface CompileResult {
  target: string;
  output: string;
  ok: boolean;
  /** `deno compile`'s stderr (progress and errors). */
  stderr: string;
}

/** True when `deno compile` failed because it could not download the target's runtime. */
export function isRuntimeDownloadFailure(stderr: string): boolean {
  return /dl\.deno\.land/.test(stderr) &&
    /error sending request|dns error|\(Connect\)|connection refused|timed out|unreachable/i.test(stderr);
}

/** Compiles the CLI for `target` (the host when undefined) into `output`. */
export async function compileCli(target?: string, output = binaryPath(target)): Promise<CompileResult> {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "compile",
      "--allow-all",
      "--unstable-kv",
      // A request's signal aborts only when its client goes away (server/routes/operations.ts).
      "--unstable-no-legacy-abort",
      "--no-check",
      ...(target ? ["--target", target] : []),
      "--output",
      output,
      CLI_ENTRY,
    ],
    cwd: projectRoot,
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  return {
    target: target ?? "host",
    output,
    ok: code === 0,
    stderr: new TextDecoder().decode(stderr),
  };
}

if (import.meta.main) {
  const targets = Deno.args.includes("--host") ? [undefined] : [undefined, ...RELEASE_TARGETS];
  let failed = 0;
  for (const target of targets) {
    const result = await compileCli(target);
    if (result.ok) console.log(`compiled ${result.target}: ${result.output}`);
    else {
      failed++;
      console.error(`compile ${result.target} failed:\n${result.stderr.trim()}`);
    }
  }
  Deno.exit(failed ? 1 : 0);
}
