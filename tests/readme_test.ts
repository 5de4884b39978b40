/**
 * The README's mechanical facts agree with the code: the tasks it names are
 * deno.json's and every task is in its table; the configuration keys it lists
 * are the known keys (server/config_keys.ts), each documented, with the
 * defaults it states; the metrics are all named; the CLI options are
 * `svc --help`'s; the REST routes (curl examples included), console commands,
 * MCP tools and project files it names exist, and the tools it says return
 * text only are those without an output schema, as many as it counts; the
 * argument errors it quotes are the console's; the embedding it shows (script,
 * element, properties, exports, events, databases) is the embed script's. Drift fails here, without
 * starting a server.
 */
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { consoleHelp, handleConsoleLine } from "../cli/console.ts";
import { main } from "../cli/main.ts";
import { type ConfigLookup, engineConfig, envName } from "../engine/config.ts";
import { llmConfig } from "../llm/config.ts";
import { TOOLS, toolsFor } from "../mcp/tools.ts";
import { ModelService } from "../engine/service/service.ts";
import { serverConfig } from "../server/config.ts";
import { KNOWN_KEYS } from "../server/config_keys.ts";
import { effectsConfig } from "../server/executors/config.ts";
import { METRIC } from "../server/metrics.ts";
import { ROUTES, templatePattern } from "../server/routes/mod.ts";
import { PAIR_PAGE } from "../server/routes/pairing.ts";
import { selectStorage } from "../server/stores/mod.ts";

const ROOT = new URL("../", import.meta.url);
const README = await Deno.readTextFile(new URL("README.md", ROOT));

/** The text of one `## Heading` section, up to the next heading of the same level. */
function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `README has a section '${title}'`);
  const end = README.indexOf("\n## ", start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

/** The inline code spans of a text, fenced blocks left out. */
function codeSpans(text: string): string[] {
  return [...text.replace(/^```[\s\S]*?^```/gm, "").matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
}

/** The fenced code blocks of the README. */
const BLOCKS = [...README.matchAll(/^```\w*\n([\s\S]*?)^```/gm)].map((m) => m[1]);

/** The rows of every Markdown table whose header row matches `header`, as cells. */
function tableRows(header: RegExp): string[][] {
  const lines = README.split("\n");
  const rows: string[][] = [];
  lines.forEach((line, start) => {
    if (!line.startsWith("|") || !header.test(line) || lines[start - 1]?.startsWith("|")) return;
    for (let i = start + 2; i < lines.length && lines[i].startsWith("|"); i++) {
      rows.push(lines[i].split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim()));
    }
  });
  assert.ok(rows.length, `README has a table headed ${header}`);
  return rows;
}

/** `svc.a.b` and a bare `c` after it name `svc.a.b` and `svc.a.c` (the tables' shorthand). */
function keysOfCell(cell: string, prefix = ""): string[] {
  const keys: string[] = [];
  for (const span of codeSpans(cell)) {
    if (span.startsWith("svc.")) keys.push(prefix + span);
    else if (prefix) keys.push(prefix + span);
    else if (keys.length) keys.push(keys.at(-1)!.replace(/[^.]+$/, span));
  }
  return keys;
}

/** The configuration tables (the main one, Effects' and Generation's `svc.llm.` one), as key → stated default. */
function configTables(): { key: string; default?: string }[] {
  const rows = [
    ...tableRows(/^\| key +\| default +\| meaning/).map((cells) => ({ cells, prefix: "" })),
    ...tableRows(/^\| key \(`svc\.llm\.`\)/).map((cells) => ({ cells, prefix: "svc.llm." })),
  ];
  return rows.flatMap(({ cells, prefix }) => {
    const keys = keysOfCell(cells[0], prefix);
    const defaults = splitOutsideCode(cells[1]);
    return keys.map((key, i) => ({ key, default: defaults[i] }));
  });
}

/** Splits a default cell on `,` and `;` outside code spans. */
function splitOutsideCode(cell: string): string[] {
  const parts: string[] = [];
  let current = "";
  let inCode = false;
  for (const char of cell) {
    if (char === "`") inCode = !inCode;
    if (!inCode && (char === "," || char === ";")) {
      parts.push(current.trim());
      current = "";
    } else current += char;
  }
  return [...parts, current.trim()];
}

/**
 * A stated default as a configuration value, or `undefined` when it is not one
 * (`unset`, `the kind's`): code marks and remarks in parentheses dropped,
 * `off` as `false`, `N MiB` in bytes.
 */
function defaultValue(stated: string): string | undefined {
  const text = stated.replace(/\([^)]*\)/g, "").replace(/`/g, "").trim();
  if (text === "" || text.startsWith("unset") || text.startsWith("the kind")) return undefined;
  if (text === "off") return "false";
  const mib = /^(\d+) MiB$/.exec(text);
  if (mib) return String(Number(mib[1]) * 1024 * 1024);
  // `127.0.0.1` in open mode: the value before the condition.
  return text.split(" in ")[0];
}

Deno.test("every `deno task` the README names is in deno.json, and every task is in its table", async () => {
  const { tasks } = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as {
    tasks: Record<string, string>;
  };
  const named = [...README.matchAll(/\bdeno(?:@[\d.]+)? task (?:-q )?([a-z][\w:-]*)/g)].map((m) => m[1]);
  assert.ok(named.length > 10);
  assert.deepEqual([...new Set(named)].filter((name) => !(name in tasks)), []);
  const table = new Set(
    tableRows(/^\| task +\| what/).flatMap(([cell]) =>
      codeSpans(cell).map((span) => span.replace(/^deno task /, ""))
    ),
  );
  assert.deepEqual(Object.keys(tasks).filter((name) => !table.has(name)), []);
});

/** Names shaped like keys that are not keys: the naming rule's example, the Deno KV file, typos it warns of. */
const NOT_KEYS = ["svc.x.y-z", "SVC_X_Y_Z", "svc.kv", "SVC_API_KEYS", "SVC_PROT"];

Deno.test("the configuration keys the README lists are the known keys, each documented", () => {
  const tables = configTables().map((row) => row.key);
  assert.deepEqual(tables.filter((key) => !KNOWN_KEYS.includes(key)), [], "table keys nobody reads");
  // Elsewhere a key is a code span `svc.x.y` (or `svc.x.y=value`), or its variable `SVC_X_Y`.
  const spans = codeSpans(README);
  const mentioned = new Set([
    ...tables,
    ...spans.filter((span) => /^svc\.[a-z0-9.-]+(=|$)/.test(span)).map((span) => span.split("=")[0]),
    ...spans.flatMap((span) => span.match(/\bSVC_[A-Z0-9_]+/g) ?? []),
    ...[...README.matchAll(/\bSVC_[A-Z0-9_]+/g)].map((m) => m[0]),
  ]);
  // The main table's meaning cells name per-concern variants as bare siblings (`spec-type`).
  const variants = new Set(
    tableRows(/^\| key +\| default +\| meaning/).flatMap((cells) => keysOfCell(cells.join(" "))),
  );
  assert.deepEqual(
    KNOWN_KEYS.filter((key) => !mentioned.has(key) && !mentioned.has(envName(key)) && !variants.has(key)),
    [],
    "known keys the README does not document",
  );
  const metrics: string[] = Object.values(METRIC);
  assert.deepEqual(metrics.filter((name) => !mentioned.has(name)), [], "metrics the README does not name");
  const unknown = [...mentioned].filter((name) =>
    name.startsWith("svc.") && !name.endsWith(".") && !KNOWN_KEYS.includes(name) && !metrics.includes(name) &&
    !NOT_KEYS.includes(name)
  );
  assert.deepEqual(unknown, [], "keys in code spans that nothing reads");
  const variables = [...mentioned].filter((name) => name.startsWith("SVC_"));
  const knownVariables = new Set(KNOWN_KEYS.map(envName));
  assert.deepEqual(
    variables.filter((name) => !knownVariables.has(name) && !NOT_KEYS.includes(name)),
    [],
    "variables nothing reads",
  );
});

Deno.test("the defaults the configuration tables state are the defaults", () => {
  const read = new Set<string>();
  const build = (lookup: ConfigLookup) => ({
    server: serverConfig(lookup),
    engine: engineConfig(lookup),
    effects: effectsConfig(lookup),
    llm: llmConfig(lookup),
    storage: selectStorage(lookup),
  });
  const baseline = build((key) => {
    read.add(key);
    return undefined;
  });
  const checked: string[] = [];
  const wrong: string[] = [];
  const rows = configTables();
  const stated = new Map(rows.map((row) => [row.key, row.default && defaultValue(row.default)]));
  for (const row of rows) {
    // `<persistence-dir>/blobs`: relative to another key's default.
    const value = row.default === undefined
      ? undefined
      : defaultValue(row.default)?.replace(/<([a-z-]+)>/g, (_, name) => stated.get(`svc.${name}`) ?? name);
    if (value === undefined || !read.has(row.key)) continue;
    checked.push(row.key);
    // Setting a key to its stated default changes nothing.
    if (!isDeepStrictEqual(build((key) => key === row.key ? value : undefined), baseline)) {
      wrong.push(`${row.key}: ${value}`);
    }
  }
  assert.deepEqual(wrong, [], "stated defaults that are not the defaults");
  assert.ok(checked.length > 50, `${checked.length} defaults checked`);
});

/** What `svc --help` prints. */
async function help(): Promise<string> {
  const log = console.log;
  let printed = "";
  console.log = (text: string) => printed += text;
  try {
    assert.equal(await main(["--help"]), 0);
  } finally {
    console.log = log;
  }
  return printed;
}

Deno.test("the CLI options of `svc --help` are the ones the README documents", async () => {
  const options = [...(await help()).matchAll(/^ {2}(--[a-z-]+)(?: <\w+>)?(?:, (-\w))?/gm)]
    .flatMap((m) => m[2] ? [m[1], m[2]] : [m[1]]);
  assert.ok(options.includes("--url"));
  const spans = codeSpans(README);
  const documented = (option: string) =>
    spans.some((span) => new RegExp(`(^|\\s)${option}(\\s|=|$)`).test(span));
  assert.deepEqual(options.filter((option) => !documented(option)), [], "options the README omits");
  // Every option of an `svc …` command, and where the README describes the CLI every option it names,
  // is svc's (or deno's, or a task's, said so).
  const others = ["--unstable-kv", "--host"];
  const cli = [section("Configuration"), section("MCP and the CLI")].flatMap(codeSpans);
  const named = [
    ...cli.filter((span) => span.startsWith("-")),
    ...spans.filter((span) => span.startsWith("svc ")),
  ]
    .flatMap((span) => span.match(/(?<=^|\s)--?[a-zA-Z][\w-]*/g) ?? []);
  assert.deepEqual(
    named.filter((option) => !options.includes(option) && !others.includes(option)),
    [],
    "options svc does not have",
  );
});

/** Every route the server answers: the route table, the pairing page and MCP's Streamable HTTP. */
const SERVED = [
  ...ROUTES.map((route) => ({ method: route.method.toUpperCase(), path: route.path })),
  { method: "GET", path: PAIR_PAGE },
  ...["GET", "POST", "DELETE"].map((method) => ({ method, path: "/mcp" })),
];

/** Whether `method path` is served; `path` is a template (`{x}`) or concrete, `…` standing for the rest. */
function served(method: string | undefined, path: string): boolean {
  const concrete = path.split("?")[0].replace(/\{[^}]+\}/g, "x").replace(/…$/, "x");
  return SERVED.some((route) =>
    (method === undefined || route.method === method) &&
    (templatePattern(route.path).test(concrete) ||
      (path.endsWith("…") && route.path.startsWith(path.slice(0, -1))))
  );
}

/** Routes the README names on purpose that the server does not serve. */
const NOT_SERVED = [
  "GET /models/{id}/audit/count", // "Adding an operation": the example of an operation that does not exist
  "PUT /mcp", // named as a 405
];

Deno.test("every REST route the README names is served, with the method it states", () => {
  const named: string[] = [];
  const methods = "GET|POST|PUT|DELETE|PATCH";
  // `GET /a`, `GET`/`DELETE /a`, and the paths after one (`POST /pair`, `/pair/token`).
  for (const text of README.replace(/^```[\s\S]*?^```/gm, "").split(/\n\s*\n/)) {
    for (
      const m of text.matchAll(new RegExp(`((?:\`(?:${methods})\`/)*)\`(${methods}) (/[^\`\\s]*)\``, "g"))
    ) {
      const [, more, method, path] = m;
      for (const extra of more.match(new RegExp(methods, "g")) ?? []) named.push(`${extra} ${path}`);
      // `GET /models/{id}/view[/{viewId}]`: both forms.
      for (const form of [path.replace(/\[[^\]]*\]/g, ""), path.replace(/[[\]]/g, "")]) {
        named.push(`${method} ${form}`);
      }
    }
  }
  // curl in the examples: `-X METHOD` (else GET) and the path after the host.
  for (const block of BLOCKS) {
    for (const line of block.split("\n")) {
      const m = /\bcurl\b(.*?)localhost:\d+(\/[^\s'"]*)/.exec(line);
      if (m) named.push(`${/-X (\w+)/.exec(m[1])?.[1] ?? "GET"} ${m[2]}`);
    }
  }
  assert.ok(named.length > 40, `${named.length} routes named`);
  const missing = [...new Set(named)].filter((entry) => {
    const [method, path] = entry.split(" ");
    return !NOT_SERVED.includes(entry) && !served(method, path);
  });
  assert.deepEqual(missing, [], "routes the README names that the server does not serve");
  // A bare path in a code span (`/actuator/health`) is served with some method.
  const prefixes = /^\/(models|blobs|admin|pair|llm|composition|actuator|v3|mcp)\b/;
  const bare = codeSpans(README).filter((span) => prefixes.test(span) && !span.includes(" "));
  // A bare path names a route or the routes under it (`/admin`, `/pair*`, `/blobs/…`).
  const under = (path: string) =>
    SERVED.some((route) => route.path.startsWith(`${path.replace(/[#*…].*$/, "").replace(/\/$/, "")}/`));
  assert.deepEqual(bare.filter((path) => !served(undefined, path.split("#")[0]) && !under(path)), []);
});

Deno.test("the console commands and MCP tools the README names exist", () => {
  const commands = new Set(consoleHelp().commands.map((c) => c.cmd));
  const tools = new Set(TOOLS.map((tool) => tool.name));
  const hypothetical = ["count-audit", "count_audit"]; // "Adding an operation"
  const named = [...README.matchAll(/"cmd":"([a-z-]+)"/g)].map((m) => m[1]);
  // "(console `list-recovery`, `get-recovery`)", "Console: `preview-generation`, …"
  for (const m of README.matchAll(/[Cc]onsole:? ((?:`[a-z-]+`(?:, | and | or |; )?)+)/g)) {
    named.push(...codeSpans(m[1]));
  }
  const table = tableRows(/^\| REST +\| console +\| MCP/);
  named.push(...table.flatMap((cells) => codeSpans(cells[1])));
  assert.deepEqual(named.filter((cmd) => !commands.has(cmd) && !hypothetical.includes(cmd)), []);
  const namedTools = table.flatMap((cells) => codeSpans(cells[2]));
  assert.deepEqual(namedTools.filter((tool) => !tools.has(tool)), []);
  // "`list_models`, … return text only, and so does `get_field`": the tools without an outputSchema.
  const textOnly = /((?:`[a-z_]+`,?\s+)+)return\s+text only, and so does `([a-z_]+)`/.exec(
    section("MCP and the CLI"),
  );
  assert.ok(textOnly, "the MCP section names the tools that return text only");
  assert.deepEqual(
    [...codeSpans(textOnly[1]), textOnly[2]].sort(),
    TOOLS.filter((tool) => !tool.outputSchema).map((tool) => tool.name).sort(),
  );
});

Deno.test("the argument errors Surfaces quotes are the console's answers", async () => {
  const text = section("Surfaces").replace(/\s+/g, " ");
  const service = await ModelService.open();
  try {
    for (
      const [line, error] of [
        ['{"cmd":"create-model"}', "Missing required field: 'spec'"],
        ['{"cmd":"get-field","id":"m"}', "Missing required field: 'path' (expected string)"],
        [
          '{"cmd":"mutate","id":"m","mutations":{},"bogus":1}',
          "Unknown argument 'bogus' for mutate; expected: id, mutations",
        ],
        ['{"cmd":"get-state","id":""}', "Invalid field 'id': must not be empty"],
      ]
    ) {
      assert.ok(text.includes(`\`${error}\``), `Surfaces quotes ${error}`);
      assert.deepEqual((await handleConsoleLine(service, line)).reply, { ok: false, error });
    }
  } finally {
    await service.close();
  }
});

Deno.test("the MCP tool counts the README states are the tools offered", () => {
  const counts = /ready: mode embedded, (\d+) tools`, (\d+) with a\s+provider/.exec(
    section("MCP and the CLI"),
  );
  assert.ok(counts, "the MCP section states the tool counts");
  assert.equal(toolsFor().length, Number(counts[1]));
  assert.equal(toolsFor({ generation: true, pairing: false }).length, Number(counts[2]));
});

Deno.test("every file of the project the README names is there", async () => {
  const named = new Set(
    [...README.matchAll(
      /(?<![\w./-])(?:engine|server|cli|mcp|llm|browser|build|bench|tests|repositories)\/[\w./-]*\w\.(?:ts|md|json|html|css)\b/g,
    )]
      .map((m) => m[0]),
  );
  assert.ok(named.size > 100, `${named.size} files named`);
  const missing: string[] = [];
  for (const path of named) {
    try {
      await Deno.stat(new URL(path, ROOT));
    } catch {
      missing.push(path);
    }
  }
  assert.deepEqual(missing, []);
});

Deno.test("the embedding the README shows is the embed script's: file, element, properties, exports, events, databases", async () => {
  const inBrowser = section("In the browser");
  const start = inBrowser.indexOf("- **Embedding**");
  assert.ok(start >= 0, "README has the Embedding paragraph");
  const embedding = inBrowser.slice(start, inBrowser.indexOf("\n- ", start + 1));
  const source = (path: string) => Deno.readTextFile(new URL(path, ROOT));
  const snippet = /<script type="module" src="[^"]*\/([\w.-]+)"><\/script>\n\s*<([\w-]+) (\w+)="/.exec(
    embedding,
  );
  assert.ok(snippet, "the Embedding paragraph shows a script and an element");
  const [, file, element, attribute] = snippet;
  // The script the web build writes from browser/embed.ts, served by the server at its name.
  assert.ok(
    (await source("browser/build.ts")).includes(`here("./embed.ts"), outfile: \`\${dir}/${file}\``),
    file,
  );
  assert.ok(embedding.includes(`at \`/${file}\``), `the paragraph says where the server serves ${file}`);
  const model = await source("browser/embed/model_element.ts");
  assert.ok(model.includes(`customElements.define("${element}", SvcModel)`), element);
  // Its attributes and properties are the element's Lit properties.
  const properties = new Set(Object.keys(
    Function(`return ${/static override properties = (\{[\s\S]*?\n {2}\});/.exec(model)![1]}`)(),
  ));
  const named = [attribute, "view", ...[...embedding.matchAll(/`(\w+)` property/g)].map((m) => m[1])];
  assert.deepEqual(named.filter((name) => !properties.has(name)), [], "properties the element lacks");
  // The module's exports: each one the README names is exported, and each export (but the element classes) named.
  const exported = [...(await source("browser/embed.ts")).matchAll(/^export \{([^}]*)\}/gm)]
    .flatMap((m) => m[1].split(",").map((name) => name.trim()));
  const api = embedding.slice(
    embedding.indexOf("the module exports"),
    embedding.indexOf("a service of the app's own"),
  );
  const documented = new Set([
    ...codeSpans(api).flatMap((span) => /^(\w+)\(/.exec(span)?.[1] ?? []),
    ...codeSpans(api).filter((span) => /^[A-Z]\w+$/.test(span)),
  ]);
  assert.deepEqual(
    [...documented].filter((name) => !exported.includes(name)),
    [],
    "exports the README names",
  );
  assert.deepEqual(
    exported.filter((name) => !documented.has(name) && !/^Svc[A-Z]/.test(name)),
    [],
    "exports the README does not name",
  );
  // The events it names are dispatched by the element or its view.
  const dispatching = (await source("browser/elements/view_element.ts")) + model;
  const events = new Set(codeSpans(embedding).filter((span) => /^svc-(?!embed)[a-z]+$/.test(span)));
  assert.ok(events.size >= 3, [...events].join());
  for (const event of events) {
    assert.match(dispatching, new RegExp(`(#emit\\(|CustomEvent\\()"${event}"`), event);
  }
  // The IndexedDB databases it names are the embed's.
  const apiSource = await source("browser/embed/api.ts");
  const base = /EMBED_DATABASE = "([\w-]+)"/.exec(apiSource)![1];
  const databases = [
    base,
    ...[...apiSource.matchAll(/`\$\{EMBED_DATABASE\}(-[\w-]+)`/g)].map((m) => base + m[1]),
  ];
  assert.deepEqual(
    [...new Set([...embedding.matchAll(/database\s+`([\w-]+)`/g)].map((m) => m[1]))].sort(),
    databases.sort(),
  );
});
