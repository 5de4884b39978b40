/**
 * Profile-guided eager compilation of a single-file bundle for `deno run`.
 *
 * Deno keeps a V8 code cache of every module it runs, made when the module
 * is compiled: it holds the functions V8 compiled then, not the ones it
 * compiled lazily on their first call. Most of a bundle's start-up code is
 * such functions (esbuild's initialisers of modules loaded on demand, the
 * functions they call), so every start parses and compiles them again:
 * about a third of the console's first answer. V8 compiles a function at
 * once when it stands in parentheses (its "PIFE" heuristic: `(function …)`,
 * `(() => …)`), and then it is in the cache.
 *
 * So the bundle is run once per start-up scenario with V8 coverage on, and
 * the function expressions and arrow functions that ran are wrapped in
 * parentheses; nothing else changes (a function's name, inferred from its
 * binding, is the same in parentheses). Declarations and methods cannot be
 * wrapped and stay lazy. Functions that do not run at start stay lazy too:
 * compiling every function of the bundle would make its cache, read at
 * every start, several times larger (measured slower than no change).
 *
 * @module
 */
import { parse } from "acorn";
import { fullAncestor } from "acorn-walk";
import { pathToFileURL } from "node:url";

/** A start-up to profile: the bundle's arguments and what its stdin receives before it closes. */
export interface StartupScenario {
  args: string[];
  stdin: string;
}

/**
 * The variables a profiled start inherits: where Deno finds its cache and
 * temporary files, nothing that configures the program (an `SVC_URL` in the
 * builder's environment would profile another mode).
 */
const INHERITED_ENV = [
  "PATH",
  "HOME",
  "DENO_DIR",
  "XDG_CACHE_HOME",
  "TMPDIR",
  "USERPROFILE",
  "LOCALAPPDATA",
  "SystemRoot",
];

/** Offsets (UTF-16 code units) where the functions that ran in a V8 coverage report of `scriptUrl` start. */
function executedStarts(report: unknown, scriptUrl: string, into: Set<number>): void {
  const { url, functions } = report as {
    url?: string;
    functions?: { ranges: { startOffset: number; count: number }[] }[];
  };
  if (url !== scriptUrl || !Array.isArray(functions)) return;
  for (const fn of functions) {
    const whole = fn.ranges[0];
    if (whole && whole.count > 0) into.add(whole.startOffset);
  }
}

/**
 * Runs `bundle` with `deno run -A --coverage` once per scenario (in a
 * temporary directory, with only {@link INHERITED_ENV} of the environment, as
 * a fresh start) and returns where the functions that ran start. Throws when a
 * run fails.
 */
export async function startupFunctions(
  bundle: string,
  scenarios: readonly StartupScenario[],
): Promise<Set<number>> {
  const work = await Deno.makeTempDir({ prefix: "svc-eager-" });
  const starts = new Set<number>();
  const scriptUrl = pathToFileURL(bundle).href;
  try {
    for (const [index, scenario] of scenarios.entries()) {
      const coverage = `${work}/coverage-${index}`;
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", `--coverage=${coverage}`, bundle, ...scenario.args],
        cwd: work,
        stdin: "piped",
        stdout: "null",
        stderr: "piped",
        clearEnv: true,
        env: {
          ...Object.fromEntries(INHERITED_ENV.flatMap((name) => {
            const value = Deno.env.get(name);
            return value === undefined ? [] : [[name, value]];
          })),
          NO_COLOR: "1",
        },
      }).spawn();
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(scenario.stdin));
      await writer.close();
      const { code, stderr } = await child.output();
      if (code !== 0) {
        throw new Error(
          `profiling '${scenario.args.join(" ")}' exited with ${code}: ${new TextDecoder().decode(stderr)}`,
        );
      }
      for await (const entry of Deno.readDir(coverage)) {
        if (!entry.name.endsWith(".json")) continue;
        executedStarts(JSON.parse(await Deno.readTextFile(`${coverage}/${entry.name}`)), scriptUrl, starts);
      }
    }
  } finally {
    await Deno.remove(work, { recursive: true });
  }
  return starts;
}

/** A node of acorn's tree, as far as this module reads it. */
interface Node {
  type: string;
  start: number;
  end: number;
  method?: boolean;
  kind?: string;
}

/**
 * `source` with the function expressions and arrow functions that start at
 * one of `starts` in parentheses (those already in parentheses, methods and
 * accessors left as they are), and how many were wrapped.
 */
export function parenthesizeFunctions(
  source: string,
  starts: ReadonlySet<number>,
): { source: string; wrapped: number } {
  const tree = parse(source, { ecmaVersion: "latest", sourceType: "module", preserveParens: true });
  const wrap: Node[] = [];
  fullAncestor(tree, (node, _state, ancestors) => {
    const fn = node as unknown as Node;
    if (fn.type !== "FunctionExpression" && fn.type !== "ArrowFunctionExpression") return;
    if (!starts.has(fn.start)) return;
    const parent = ancestors[ancestors.length - 2] as unknown as Node | undefined;
    // A method's or accessor's function cannot stand in parentheses; one that already does is eager.
    if (parent?.type === "MethodDefinition" || parent?.type === "ParenthesizedExpression") return;
    if (parent?.type === "Property" && (parent.method || parent.kind !== "init")) return;
    wrap.push(fn);
  });
  // Every parenthesis at its offset in `source`, in order of offset (the walk visits each node once).
  const marks = wrap.flatMap(({ start, end }) => [{ at: start, text: "(" }, { at: end, text: ")" }])
    .sort((a, b) => a.at - b.at);
  const pieces: string[] = [];
  let from = 0;
  for (const { at, text } of marks) {
    pieces.push(source.slice(from, at), text);
    from = at;
  }
  pieces.push(source.slice(from));
  return { source: pieces.join(""), wrapped: wrap.length };
}
