import assert from "node:assert/strict";
import { parseCliArgs } from "./args.ts";

Deno.test("option values are never taken for the subcommand", () => {
  assert.deepEqual(parseCliArgs(["--url", "http://h", "--api-key", "k", "mcp"]), {
    command: "mcp",
    url: "http://h",
    apiKey: "k",
    config: undefined,
    browser: false,
    help: false,
    version: false,
    rest: ["--url", "http://h", "--api-key", "k"],
  });
  const inline = parseCliArgs(["serve", "--config=svc.yaml", "--verbose"]);
  assert.equal(inline.command, "serve");
  assert.equal(inline.config, "svc.yaml");
  assert.deepEqual(inline.rest, ["--config=svc.yaml", "--verbose"]);
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
