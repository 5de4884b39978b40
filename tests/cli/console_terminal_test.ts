/**
 * The console as a person meets it: typed at a terminal it shows a banner and
 * a prompt (on stderr, beside the protocol); on pipes it stays the bare
 * protocol. The authoring commands are there as they are in MCP.
 */
import assert from "node:assert/strict";
import { CLI_MAIN } from "../server/helpers.ts";

/** `script` gives the child a pseudo-terminal; CI machines have it (util-linux). */
const SCRIPT = ["/usr/bin/script", "/bin/script"].find((path) => {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
});

async function run(
  command: string,
  args: string[],
  input: string,
): Promise<{ stdout: string; stderr: string }> {
  const child = new Deno.Command(command, {
    args,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  const out = await child.output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

const COMMANDS = '{"cmd":"list-models"}\n{"cmd":"exit"}\n';

Deno.test({
  name: "at a terminal the console shows a banner and a prompt",
  ignore: SCRIPT === undefined,
  fn: async () => {
    const command = `${Deno.execPath()} run -A ${CLI_MAIN} console`;
    const { stdout } = await run(SCRIPT!, ["-qec", command, "/dev/null"], COMMANDS);
    assert.match(
      stdout,
      /console \(embedded, in memory\)\. One JSON command per line, e\.g\. \{"cmd":"help"\}/,
    );
    assert.match(stdout, /svc> \{"ok":true,"result":\[\]\}/);
  },
});

Deno.test("on pipes the console prints only protocol lines", async () => {
  const { stdout, stderr } = await run(Deno.execPath(), ["run", "-A", CLI_MAIN, "console"], COMMANDS);
  assert.equal(stdout, '{"ok":true,"result":[]}\n{"ok":true,"result":"bye"}\n');
  assert.equal(stderr, "");
});

Deno.test("the console has the authoring commands: validate-spec, eval-expression, test-spec, dry-run", async () => {
  const spec = {
    id: "calc",
    schema: { type: "object", properties: { qty: { type: "number" } } },
    derivations: [{ path: "$.double", expr: "qty * 2" }],
    tests: [{ given: { "$.qty": 2 }, expect: { "$.double": 4 } }],
  };
  const lines = [
    { cmd: "validate-spec", spec },
    { cmd: "validate-spec", spec: { id: "bad", schema: {}, derivations: [{ path: "$.a", expr: "1 +" }] } },
    { cmd: "eval-expression", expr: "a + 1", input: { a: 2 } },
    { cmd: "test-spec", spec },
    { cmd: "dry-run", spec, mutations: { "$.qty": 5 } },
    { cmd: "list-models" },
  ].map((l) => JSON.stringify(l)).join("\n") + "\n";
  const { stdout } = await run(Deno.execPath(), ["run", "-A", CLI_MAIN, "console"], lines);
  const replies = stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(replies[0], { ok: true, result: { valid: true, errors: [], warnings: [] } });
  assert.equal(replies[1].result.valid, false);
  assert.equal(replies[1].result.errors[0].location, "derivations[0].expr");
  assert.deepEqual(replies[2], { ok: true, result: { result: 3, type: "number" } });
  assert.equal(replies[3].result.passed, true);
  assert.deepEqual(replies[4].result.state, { qty: 5, double: 10 });
  assert.deepEqual(replies[5], { ok: true, result: [] }, "authoring registers nothing");
});
