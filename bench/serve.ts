/**
 * A `svc serve` child process for the HTTP benchmarks, on a free loopback
 * port, with its base URL and storage read from the startup line.
 *
 * @module
 */

/** A running benchmark server. */
export interface BenchServer {
  child: Deno.ChildProcess;
  url: string;
  storage: string;
}

/** Starts `svc serve` on 127.0.0.1 with `env` (SVC_* keys) and resolves once it listens. */
export async function startBenchServer(env: Record<string, string>): Promise<BenchServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("../cli/main.ts", import.meta.url).pathname, "serve"],
    env: { SVC_HOST: "127.0.0.1", SVC_PORT: "0", NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`server exited before listening:\n${seen}`);
    seen += value;
    const url = /listening on (http:\/\/\S+) \(storage: ([^;]+);/.exec(seen);
    if (url) {
      // Keep draining stdout so the server never blocks on a full pipe.
      (async () => {
        while (!(await reader.read()).done);
      })();
      return { child, url: url[1], storage: url[2] };
    }
  }
}
