/**
 * `svc --help` and `svc --version` as the real CLI process; an unknown command,
 * an unknown option and an option without its value are usage errors (exit 2);
 * a configuration the console or MCP cannot start with is one `error:` line
 * (exit 1).
 */
import assert from "node:assert/strict";
import { SERVICE_NAME, SERVICE_VERSION } from "../../engine/version.ts";
import { runCli } from "./helpers.ts";

Deno.test("--help lists every subcommand and option, with or without a subcommand", async () => {
  for (const args of [["--help"], ["-h"], ["console", "--help"], ["--url", "http://h", "--help"]]) {
    const run = await runCli(args);
    assert.equal(run.code, 0, args.join(" "));
    assert.match(run.stdout, /^Usage: svc <command> \[options\]/);
    for (
      const word of [
        "console",
        "mcp",
        "serve",
        "--url <base>",
        "--api-key <key>",
        "--timeout <ms>",
        "--config <file>",
      ]
    ) {
      assert.ok(run.stdout.includes(word), `${args.join(" ")}: ${word}`);
    }
    assert.ok(run.stdout.includes("SVC_URL") && run.stdout.includes("SVC_API_KEY"));
  }
});

Deno.test("--version prints name and version", async () => {
  for (const args of [["--version"], ["-V"], ["serve", "--version"]]) {
    const run = await runCli(args);
    assert.equal(run.code, 0);
    assert.equal(run.stdout, `${SERVICE_NAME} ${SERVICE_VERSION}\n`);
  }
});

Deno.test("usage errors exit 2 and name the problem without echoing values", async () => {
  const unknown = await runCli(["frobnicate"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /^Unknown command 'frobnicate'/);
  const missing = await runCli(["console", "--api-key"]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /^Option --api-key needs a value/);
  for (
    const [args, message] of [
      [["console", "--ulr", "http://127.0.0.1:9"], /^Unknown option --ulr\n/],
      [["mcp", "--api_key=s3cret"], /^Unknown option --api_key\n/],
      [["--bogus"], /^Unknown option --bogus\n/],
      [["console", "extra"], /^Unexpected argument 'extra'/],
    ] as const
  ) {
    const run = await runCli([...args], { lines: ['{"cmd":"list-models"}'] });
    assert.equal(run.code, 2, args.join(" "));
    assert.match(run.stderr, message);
    assert.ok(!run.stderr.includes("s3cret"));
    assert.equal(run.stdout, "", `${args.join(" ")}: nothing ran`);
  }
});

Deno.test("console and mcp refuse a configuration they cannot start with: one error line, exit 1", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/bad.yaml`, "svc:\n  max-models: [1,\n");
    const cases: [string[], Record<string, string>, RegExp][] = [
      [["--strict-config"], { SVC_MAX_MODLES: "5" }, /^error: Unknown configuration \(strict mode/],
      [["--config", `${dir}/none.json`], {}, /^error: .*none\.json/],
      [["--config", `${dir}/bad.yaml`], {}, /^error: .*bad\.yaml/],
      [[], { SVC_MAX_MODELS: "abc" }, /^error: Configuration svc\.max-models \(SVC_MAX_MODELS\)/],
      [[], { SVC_LLM_PROVIDER: "bogus" }, /^error: Configuration svc\.llm\.provider \(SVC_LLM_PROVIDER\)/],
    ];
    for (const command of ["console", "mcp"]) {
      for (const [args, env, message] of cases) {
        const run = await runCli([command, ...args], { env });
        const what = `${command} ${args.join(" ")} ${JSON.stringify(env)}`;
        assert.equal(run.code, 1, `${what}: ${run.stderr}`);
        assert.match(run.stderr, message, what);
        assert.doesNotMatch(run.stderr, /\n\s+at /, `${what}: no stack trace`);
        assert.equal(run.stdout, "", what);
      }
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deno task console as the README gives it: with a provider configured, and with `-- <options>`", async () => {
  const task = async (args: string[], env: Record<string, string>, line: object) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["task", "-q", "console", ...args],
      env: { NO_COLOR: "1", ...env },
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(JSON.stringify(line) + "\n"));
    await writer.close();
    const { code, stdout, stderr } = await child.output();
    return { code, stdout: new TextDecoder().decode(stdout), stderr: new TextDecoder().decode(stderr) };
  };
  // The AI libraries read the host name when they load: the task grants that.
  const mock = await task([], { SVC_LLM_MOCK: "true" }, { cmd: "generation-status" });
  assert.equal(mock.code, 0, mock.stderr);
  assert.deepEqual(JSON.parse(mock.stdout), { ok: true, result: { available: true } });
  // Deno 2 passes the `--` on: remote mode through the task, against a server that is not there.
  const remote = await task(["--", "--url", "http://127.0.0.1:9", "--timeout", "2000"], {}, {
    cmd: "list-models",
  });
  assert.equal(remote.code, 0, remote.stderr);
  assert.match(JSON.parse(remote.stdout).error, /127\.0\.0\.1:9/);
});
