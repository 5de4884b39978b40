/**
 * Cold start of the CLI (`deno task bench:cold-start`): time from spawning the
 * process to the first answer on stdout, of the console (`{"cmd":"list-models"}`)
 * and of MCP over stdio (`initialize`; and, without an aim of its own, to the
 * answer of `tools/list` sent right after, an agent's real start), for `deno run` of the bundle
 * (dist/svc.js, rebuilt first, and the same bundle built without compiling
 * its start-up eagerly, build/eager_compile.ts), for the compiled binary (dist/svc) when it
 * exists, and for `deno run` of the sources as a reference. Each is started several times in turns (so load
 * from other processes hits them alike) from an empty directory, as an agent's
 * MCP client would start it; the median is reported against the 100 ms aim.
 *
 *     deno task bench:cold-start [-- --runs 21]
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { buildCliBundle, MCP_AGENT_START } from "../cli/build/bundle.ts";

/** A way of starting the CLI. */
interface Candidate {
  label: string;
  command: string;
  args: string[];
}

/** A surface started: its `svc` command, its requests, and how the line timed (the answer) starts. */
interface Surface {
  name: string;
  command: string;
  request: Uint8Array;
  answer: string;
  /** No aim of its own (what an agent waits for after the handshake). */
  informational?: boolean;
}

const AIM_MS = 100;
const encoder = new TextEncoder();
const [MCP_INITIALIZE] = MCP_AGENT_START;
const SURFACES: Surface[] = [
  {
    name: "console",
    command: "console",
    request: encoder.encode('{"cmd":"list-models"}\n'),
    answer: '{"ok":true',
  },
  {
    name: "MCP",
    command: "mcp",
    request: encoder.encode(JSON.stringify(MCP_INITIALIZE) + "\n"),
    answer: '{"result":{"protocolVersion"',
  },
  {
    // An agent's start: the handshake, then its tool list (which needs the engine and the SDK loaded).
    name: "MCP to tools/list",
    command: "mcp",
    request: encoder.encode(MCP_AGENT_START.map((message) => JSON.stringify(message) + "\n").join("")),
    answer: '{"result":{"tools"',
    informational: true,
  },
];

/** Milliseconds from spawn to the surface's answer line; fails when the answer is not the expected one. */
async function startOnce(candidate: Candidate, surface: Surface, cwd: string): Promise<number> {
  const started = performance.now();
  const child = new Deno.Command(candidate.command, {
    args: [...candidate.args, surface.command],
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
    env: { NO_COLOR: "1" },
  }).spawn();
  const stdin = child.stdin.getWriter();
  await stdin.write(surface.request);
  const decoder = new TextDecoder();
  let text = "";
  let elapsed = NaN;
  // A whole line (one the output has ended) that starts as the answer does.
  const answered = () =>
    text.split("\n").some((line, i, lines) => i < lines.length - 1 && line.startsWith(surface.answer));
  for await (const chunk of child.stdout) {
    text += decoder.decode(chunk, { stream: true });
    if (answered()) {
      elapsed = performance.now() - started;
      break;
    }
  }
  await stdin.close();
  await child.status;
  if (!answered()) {
    throw new Error(`${candidate.label} ${surface.name}: unexpected answer ${text}`);
  }
  return elapsed;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

if (import.meta.main) {
  const runsArg = Deno.args.indexOf("--runs");
  const runs = runsArg >= 0 ? Number(Deno.args[runsArg + 1]) : 15;
  // The two builds take a while (the eager one profiles the start-up): say so rather than look hung.
  console.log("building the CLI bundle twice (with and without eager compilation)…");
  const { outfile, bytes } = await buildCliBundle();
  // The same bundle without its start-up functions compiled eagerly (build/eager_compile.ts): what that gains.
  const cwd = await Deno.makeTempDir({ prefix: "svc-cold-start-" });
  const lazy = await buildCliBundle({ outfile: `${cwd}/svc-lazy.js`, eager: false });
  const binary = fileURLToPath(
    new URL(`../dist/svc${Deno.build.os === "windows" ? ".exe" : ""}`, import.meta.url),
  );
  const source = fileURLToPath(new URL("../cli/main.ts", import.meta.url));
  const candidates: Candidate[] = [
    {
      label: `deno run dist/svc.js (${(bytes / 1024).toFixed(0)} KiB)`,
      command: Deno.execPath(),
      args: ["run", "-A", outfile],
    },
    {
      label: "the same, start-up not compiled eagerly",
      command: Deno.execPath(),
      args: ["run", "-A", lazy.outfile],
    },
    ...(await exists(binary)) ? [{ label: "compiled binary dist/svc", command: binary, args: [] }] : [],
    {
      label: "deno run cli/main.ts (sources)",
      command: Deno.execPath(),
      args: ["run", "-A", source],
    },
  ];
  try {
    const runsOf = candidates.flatMap((candidate) => SURFACES.map((surface) => ({ candidate, surface })));
    const samples = new Map(runsOf.map((run) => [run, [] as number[]]));
    // The first start of a file fills Deno's code cache; it is reported apart.
    const first = new Map<(typeof runsOf)[number], number>();
    for (const run of runsOf) first.set(run, await startOnce(run.candidate, run.surface, cwd));
    for (let round = 0; round < runs; round++) {
      for (const run of runsOf) samples.get(run)!.push(await startOnce(run.candidate, run.surface, cwd));
    }
    console.log(`cold start to the first answer, ${runs} runs each (ms):`);
    for (const run of runsOf) {
      const sorted = samples.get(run)!.sort((a, b) => a - b);
      const median = quantile(sorted, 0.5);
      console.log(
        `  ${`${run.candidate.label}, ${run.surface.name}`.padEnd(48)} median ${
          median.toFixed(1).padStart(6)
        }  ` +
          `min ${sorted[0].toFixed(1).padStart(6)}  p90 ${quantile(sorted, 0.9).toFixed(1).padStart(6)}  ` +
          `first ${first.get(run)!.toFixed(1).padStart(6)}  ` +
          (run.surface.informational
            ? "(no aim)"
            : median <= AIM_MS
            ? `(aim ${AIM_MS} ms: met)`
            : `(aim ${AIM_MS} ms: missed)`),
      );
    }
    if (!(await exists(binary))) {
      console.log("  (no compiled binary at dist/svc: run `deno task compile` first)");
    }
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}
