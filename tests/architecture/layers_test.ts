/**
 * The import order of the codebase (README "Layers"), checked over the relative
 * imports of every non-test `.ts` file:
 *
 * - engine/ folders import only their own or lower ranks (json < expr < graph <
 *   model < runtime < view, evolve, audit, authoring < service < operations);
 *   the peers of one rank do not import each other in a loop;
 * - engine root files (errors.ts, config.ts, ports.ts, version.ts) import only
 *   json/ and each other, and json/ imports nothing outside itself; mod.ts, the
 *   public entry, may import anything in engine/;
 * - engine/ never imports outside engine/ and never touches `Deno.`;
 * - mcp/ and server/ never import cli/;
 * - no folder-level cycles anywhere: the sibling folders under any folder
 *   (top-level folders included) import each other without a loop.
 *
 * A failure names each offending import as `file -> target`.
 *
 * @module
 */
import assert from "node:assert/strict";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SKIPPED_DIRS = new Set(["node_modules", ".git", "data", "dist"]);

/** engine/ folders by rank: a folder may import its own rank or lower ones. */
const ENGINE_RANKS: Record<string, number> = {
  json: 0,
  expr: 2,
  graph: 3,
  model: 4,
  runtime: 5,
  view: 6,
  evolve: 6,
  audit: 6,
  authoring: 6,
  effects: 6,
  composition: 6,
  service: 7,
  operations: 8,
};
/** Rank of the engine's root files: above json/, below every other folder. */
const ROOT_FILES_RANK = 1;
/** The engine's public entry, which re-exports from every layer. */
const ENGINE_ENTRY = "engine/mod.ts";

/** An import of one repository file by another, both relative to the repository root. */
interface Import {
  file: string;
  target: string;
}

const show = (imports: Import[]) => imports.map((i) => `  ${i.file} -> ${i.target}`).join("\n");

/** Test code: test files and the helpers only tests import. */
function isTestCode(path: string): boolean {
  return path.startsWith("tests/") || /(^|\/)(\w+_test|_test_utils|test_support)\.ts$/.test(path);
}

function sourceFiles(dir = ROOT): string[] {
  const files: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory && !SKIPPED_DIRS.has(entry.name)) files.push(...sourceFiles(path));
    else if (entry.isFile && entry.name.endsWith(".ts")) {
      const file = relative(ROOT, path);
      if (!isTestCode(file)) files.push(file);
    }
  }
  return files.sort();
}

const STATIC_IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s*["'](\.{1,2}\/[^"']+)["']/gm;
const BARE_IMPORT = /^\s*import\s*["'](\.{1,2}\/[^"']+)["']/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;

function importsOf(file: string, source: string): Import[] {
  const specifiers = [STATIC_IMPORT, BARE_IMPORT, DYNAMIC_IMPORT]
    .flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1]));
  return specifiers.map((specifier) => ({ file, target: join(dirname(file), specifier) }));
}

const FILES = sourceFiles();
const SOURCES = new Map(FILES.map((file) => [file, Deno.readTextFileSync(join(ROOT, file))]));
const IMPORTS = FILES.flatMap((file) => importsOf(file, SOURCES.get(file)!));

/** The engine folder of an engine path (`model`), or "" for a root file. */
function engineFolder(path: string): string {
  const parts = path.split("/");
  return parts.length > 2 ? parts[1] : "";
}

function engineRank(path: string): number | undefined {
  const folder = engineFolder(path);
  return folder === "" ? ROOT_FILES_RANK : ENGINE_RANKS[folder];
}

/** Cycles of a directed graph (one per strongly connected component of more than one node). */
function cycles(edges: Map<string, Set<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const connect = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.reverse());
  };
  for (const v of edges.keys()) if (!index.has(v)) connect(v);
  return found;
}

/** The sibling folders an import crosses: the first folders below their common parent, if both are folders. */
function siblingFolders({ file, target }: Import): [string, string] | null {
  const from = dirname(file).split("/");
  const to = dirname(target).split("/");
  let common = 0;
  while (common < from.length && common < to.length && from[common] === to[common]) common++;
  if (from[0] === ".") return null;
  if (common === from.length || common === to.length || to[0] === ".") return null;
  const parent = from.slice(0, common);
  return [[...parent, from[common]].join("/"), [...parent, to[common]].join("/")];
}

Deno.test("layers: the scan sees the codebase's imports", () => {
  assert.ok(FILES.includes("engine/model/compile.ts") && FILES.includes("server/app.ts"));
  assert.ok(IMPORTS.length > 300, `only ${IMPORTS.length} imports found`);
  for (const { file, target } of IMPORTS) {
    assert.ok(
      SOURCES.has(target) || isTestCode(target) || !target.endsWith(".ts"),
      `${file} -> ${target}: no such file`,
    );
  }
});

Deno.test("layers: every engine folder has a rank", () => {
  const unranked = FILES.filter((f) => f.startsWith("engine/") && engineRank(f) === undefined);
  assert.deepEqual(unranked, [], `engine folders without a rank in ENGINE_RANKS:\n${unranked.join("\n")}`);
});

Deno.test("layers: engine/ imports downwards only", () => {
  const upward = IMPORTS.filter(({ file, target }) => {
    if (!file.startsWith("engine/") || !target.startsWith("engine/") || file === ENGINE_ENTRY) return false;
    if (engineFolder(file) === engineFolder(target)) return false;
    if (engineFolder(file) === "json") return true;
    return engineRank(target)! > engineRank(file)!;
  });
  assert.deepEqual(upward, [], `imports of a higher layer:\n${show(upward)}`);
});

Deno.test("layers: engine/ folders of one rank do not import each other in a loop", () => {
  const edges = new Map<string, Set<string>>();
  const crossing = IMPORTS.filter(({ file, target }) =>
    file.startsWith("engine/") && target.startsWith("engine/") && engineFolder(file) !== "" &&
    engineFolder(target) !== "" && engineFolder(file) !== engineFolder(target) &&
    engineRank(file) === engineRank(target)
  );
  for (const { file, target } of crossing) {
    const set = edges.get(engineFolder(file)) ??
      edges.set(engineFolder(file), new Set()).get(engineFolder(file))!;
    set.add(engineFolder(target));
  }
  const loops = cycles(edges);
  const offending = crossing.filter((i) => loops.some((loop) => loop.includes(engineFolder(i.file))));
  assert.deepEqual(loops, [], `peer folders in a loop:\n${show(offending)}`);
});

Deno.test("layers: engine/ stays inside engine/ and never touches Deno", () => {
  const outside = IMPORTS.filter(({ file, target }) =>
    file.startsWith("engine/") && !target.startsWith("engine/")
  );
  assert.deepEqual(outside, [], `engine imports from outside engine/:\n${show(outside)}`);
  const deno = FILES.filter((f) => f.startsWith("engine/") && /\bDeno\./.test(SOURCES.get(f)!));
  assert.deepEqual(deno, [], `engine files using Deno.*:\n${deno.join("\n")}`);
});

Deno.test("layers: mcp/ and server/ never import cli/", () => {
  const wrong = IMPORTS.filter(({ file, target }) =>
    (file.startsWith("mcp/") || file.startsWith("server/")) && target.startsWith("cli/")
  );
  assert.deepEqual(wrong, [], `imports of cli/:\n${show(wrong)}`);
});

Deno.test("layers: no folder-level cycles anywhere", () => {
  const edges = new Map<string, Set<string>>();
  const crossings: (Import & { from: string; to: string })[] = [];
  for (const i of IMPORTS) {
    const pair = siblingFolders(i);
    if (!pair) continue;
    const [from, to] = pair;
    crossings.push({ ...i, from, to });
    (edges.get(from) ?? edges.set(from, new Set()).get(from)!).add(to);
  }
  const loops = cycles(edges);
  const offending = crossings.filter((c) =>
    loops.some((loop) => loop.includes(c.from) && loop.includes(c.to))
  );
  assert.deepEqual(
    loops,
    [],
    `folders in a loop: ${loops.map((l) => l.join(" <-> ")).join("; ")}\n${show(offending)}`,
  );
});
