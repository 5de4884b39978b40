import assert from "node:assert/strict";
import { flattenConfig } from "../server/config.ts";
import { parseRepositories, splitCommand } from "./config.ts";

Deno.test("repositories: entries, inferred class, command lines; unknown transports skipped with a warning", () => {
  const warnings: string[] = [];
  const parsed = parseRepositories(
    JSON.stringify([
      { id: "hub", transport: "http", locator: "http://127.0.0.1:9000", credential: "k" },
      { id: "kid", transport: "mcp", locator: `deno run -A "my dir/main.ts" mcp`, trusted: true },
      { id: "disk", transport: "filesystem", locator: "/x" },
      { id: "attic", transport: "http", "repo-class": "local", locator: "https://attic.example" },
    ]),
    (m) => warnings.push(m),
  );
  assert.deepEqual(parsed, [
    {
      id: "hub",
      transport: "http",
      repoClass: "web",
      locator: "http://127.0.0.1:9000",
      credential: "k",
      trusted: false,
    },
    {
      id: "kid",
      transport: "mcp",
      repoClass: "web",
      locator: ["deno", "run", "-A", "my dir/main.ts", "mcp"],
      credential: null,
      trusted: true,
    },
    {
      id: "attic",
      transport: "http",
      repoClass: "local",
      locator: "https://attic.example",
      credential: null,
      trusted: false,
    },
  ]);
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0],
    /entry 2 \('disk'\): transport 'filesystem' is not supported \(http, mcp\); skipped/,
  );
  assert.deepEqual(parseRepositories(undefined, () => {}), []);
  assert.deepEqual(
    parseRepositories(
      JSON.stringify([
        { id: "hub", transport: "http", locator: "http://h", lookupTimeoutMs: 1, openTimeoutMs: 300_000 },
        { id: "kid", transport: "mcp", locator: "kid", lookupTimeoutMs: 2500 },
      ]),
      () => {},
    ).map(({ id, lookupTimeoutMs, openTimeoutMs }) => ({ id, lookupTimeoutMs, openTimeoutMs })),
    [
      { id: "hub", lookupTimeoutMs: 1, openTimeoutMs: 300_000 },
      { id: "kid", lookupTimeoutMs: 2500, openTimeoutMs: undefined },
    ],
    "timeouts as configured",
  );
  assert.deepEqual(parseRepositories(" ", () => {}), []);
});

Deno.test("repositories: every mistake stops the start with the key and the entry", () => {
  const fails = (value: string, message: RegExp) =>
    assert.throws(() => parseRepositories(value, () => {}), (err: Error) => {
      assert.match(err.message, /svc\.composition\.repositories \(SVC_COMPOSITION_REPOSITORIES\)/);
      assert.match(err.message, message);
      return true;
    });
  fails("[{", /must be a JSON array of repositories: /);
  fails('{"id":"x"}', /must be a JSON array/);
  fails("[1]", /entry 0 must be an object/);
  fails('[{"id":"1x","transport":"http","locator":"http://a"}]', /entry 0: id must be a name/);
  fails('[{"id":"a","locator":"http://a"}]', /entry 0 \('a'\): transport is required: http or mcp/);
  fails('[{"id":"local","transport":"http","locator":"http://a"}]', /id 'local' is reserved/);
  fails(
    '[{"id":"a","transport":"http","locator":"http://a"},{"id":"a","transport":"http","locator":"http://b"}]',
    /entry 1: id 'a' is repeated/,
  );
  fails('[{"id":"a","transport":"http","locator":"ftp://a"}]', /an http locator is the server's base URL/);
  fails('[{"id":"a","transport":"mcp","locator":""}]', /an mcp locator is a command/);
  fails('[{"id":"a","transport":"mcp","locator":"deno \\"run"}]', /an mcp locator is a command/);
  fails('[{"id":"a","transport":"http","locator":"http://a","repo-class":"cloud"}]', /repo-class must be/);
  fails('[{"id":"a","transport":"http","locator":"http://a","credential":5}]', /credential must be a string/);
  fails(
    '[{"id":"a","transport":"http","locator":"http://a","trusted":"yes"}]',
    /trusted must be true or false/,
  );
  fails('[{"id":"a","transport":"http","locator":"http://a","url":"x"}]', /unknown member\(s\) 'url'/);
  for (const ms of ["0", "-5", "1.5", '"5000"', "300001", "null", "true"]) {
    fails(
      `[{"id":"a","transport":"http","locator":"http://a","lookupTimeoutMs":${ms}}]`,
      new RegExp(
        `entry 0 \\('a'\\): lookupTimeoutMs must be a whole number of milliseconds from 1 to 300000, got ${
          ms.replace(".", "\\.")
        }$`,
      ),
    );
  }
  fails(
    '[{"id":"a","transport":"http","locator":"http://a","openTimeoutMs":0}]',
    /entry 0 \('a'\): openTimeoutMs must be a whole number of milliseconds from 1 to 300000, got 0$/,
  );
  fails(
    '[{"id":"a","transport":"mcp","locator":"kid","openTimeoutMs":100}]',
    /entry 0 \('a'\): openTimeoutMs applies to http repositories only/,
  );
  assert.deepEqual(splitCommand(`a 'b c' "d'e"  f`), ["a", "b c", "d'e", "f"]);
  assert.deepEqual(splitCommand(`a ""`), ["a", ""]);
});

Deno.test("a config file's list of repositories stays JSON; lists of scalars stay comma-separated", () => {
  const flat = flattenConfig({
    svc: {
      composition: { repositories: [{ id: "hub", transport: "http", locator: "http://h" }] },
      effects: { kinds: { enabled: ["server", "timer"] } },
    },
  }, "f.yaml");
  assert.deepEqual(JSON.parse(flat.get("svc.composition.repositories")!), [
    { id: "hub", transport: "http", locator: "http://h" },
  ]);
  assert.equal(flat.get("svc.effects.kinds.enabled"), "server,timer");
});
