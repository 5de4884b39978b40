import assert from "node:assert/strict";
import { parseCliArgs } from "./args.ts";

Deno.test("option values are never taken for the subcommand", () => {
  assert.deepEqual(parseCliArgs(["--url", "http://h", "--api-key", "k", "mcp"]), {
    command: "mcp",
    url: "http://h",
    apiKey: "k",
    timeout: undefined,
    config: undefined,
    browser: false,
    help: false,
    version: false,
    rest: ["--url", "http://h", "--api-key", "k"],
  });
  const inline = parseCliArgs(["serve", "--config=svc.yaml", "--strict-config"]);
  assert.equal(inline.command, "serve");
  assert.equal(inline.config, "svc.yaml");
  assert.deepEqual(inline.rest, ["--config=svc.yaml", "--strict-config"]);
  const timed = parseCliArgs(["console", "--timeout", "500", "--url=http://h"]);
  assert.deepEqual([timed.command, timed.timeout, timed.url], ["console", "500", "http://h"]);
  assert.equal(parseCliArgs(["--timeout=0"]).timeout, "0", "checked where it is used");
  assert.throws(() => parseCliArgs(["console", "--timeout"]), /Option --timeout needs a value/);
  const browser = parseCliArgs(["mcp", "--browser", "--url", "http://h"]);
  assert.deepEqual([browser.command, browser.browser, browser.url], ["mcp", true, "http://h"]);
  assert.deepEqual(browser.rest, ["--browser", "--url", "http://h"]);
});

Deno.test("no subcommand, flags, and a value option at the end", () => {
  const parsed = parseCliArgs(["-h", "--version"]);
  assert.equal(parsed.command, undefined);
  assert.ok(parsed.help && parsed.version);
  assert.throws(() => parseCliArgs(["console", "--url"]), /Option --url needs a value/);
});

Deno.test("--port and --host, which svc serve does not take, say the setting that does", () => {
  assert.throws(
    () => parseCliArgs(["serve", "--port", "0"]),
    (err: Error) =>
      err.message ===
        "Unknown option --port: the port is the setting svc.port, SVC_PORT=… in the environment " +
          "(or svc.port in the --config file)",
  );
  assert.throws(() => parseCliArgs(["serve", "--host=::"]), /^Error: Unknown option --host: .* SVC_HOST=… /);
});

Deno.test("an unknown option or a second command is an error, the option named without its value", () => {
  assert.throws(() => parseCliArgs(["console", "--ulr", "http://h"]), /^Error: Unknown option --ulr$/);
  assert.throws(() => parseCliArgs(["--bogus"]), /Unknown option --bogus/);
  assert.throws(
    () => parseCliArgs(["console", "--api_key=secret"]),
    (err: Error) => err.message === "Unknown option --api_key",
  );
  assert.throws(() => parseCliArgs(["-x", "console"]), /Unknown option -x/);
  assert.throws(
    () => parseCliArgs(["console", "extra"]),
    /Unexpected argument 'extra'.*console was given first/,
  );
});

Deno.test("a lone -- (deno task console -- --url …) separates nothing and is dropped", () => {
  const parsed = parseCliArgs(["console", "--", "--url", "http://h"]);
  assert.deepEqual([parsed.command, parsed.url, parsed.rest], ["console", "http://h", ["--url", "http://h"]]);
  assert.deepEqual(parseCliArgs(["--", "mcp"]).command, "mcp");
});
