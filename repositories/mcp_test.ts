import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/inMemory"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
// @ts-types="@modelcontextprotocol/sdk/server/index"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  CallToolRequestSchema,
  type CallToolResult,
  McpError,
  SubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type ErrorKind, NoAnswerError, ServiceError, STATUS_OF_KIND } from "../engine/errors.ts";
import { toolFailure } from "../mcp/results.ts";
import { RESOURCE_NOT_FOUND } from "../mcp/resources.ts";
import { until } from "../tests/effects/helpers.ts";
import { fetchWithin } from "../engine/operations/fetch_within.ts";
import { mcpRepository, toolError } from "./mcp.ts";
import { withTimeoutsDue } from "./_test_timeouts.ts";

/**
 * The `mcp` repository "kid" over in-memory children (`timers`: the scheduler of its restarts; `lookupTimeoutMs`
 * as configured).
 */
function kidRepository(
  children: ReturnType<typeof memoryChildren>,
  timers?: ReturnType<typeof heldTimers>,
  lookupTimeoutMs?: number,
) {
  return mcpRepository({
    id: "kid",
    repoClass: "web",
    argv: ["unused"],
    credential: null,
    transport: () => children.transport(),
    scheduler: timers?.scheduler,
    lookupTimeoutMs,
  });
}

Deno.test("toolError: the kind named by an svc mcp child wins over what the message suggests", () => {
  // Messages chosen to mislead the text heuristic (a 404 mentioning a queue, a 429 saying "not found").
  const cases: [ErrorKind, string][] = [
    ["not_found", "Model 'queue' not found"],
    ["too_many", "Too many writes queued: 'x' not found in time"],
    ["forbidden", "Model 'busy' is read-only"],
    ["version_conflict", "Stale version"],
    ["internal", "boom"],
  ];
  for (const [kind, message] of cases) {
    const error = toolError(toolFailure(new ServiceError(kind, message)));
    assert.equal(error.kind, kind, message);
    assert.equal(error.message, message);
  }
  for (const kind of Object.keys(STATUS_OF_KIND) as ErrorKind[]) {
    assert.equal(toolError(toolFailure(new ServiceError(kind, "m"))).kind, kind);
  }
  assert.equal(toolError(toolFailure(new Error("defect"))).kind, "internal");
});

Deno.test("toolError: from another MCP server (no kind, or an unknown one) the message decides", () => {
  const result = (text: string, meta?: Record<string, unknown>) => ({
    content: [{ type: "text" as const, text }],
    isError: true,
    ...meta ? { _meta: meta } : {},
  });
  assert.equal(toolError(result(JSON.stringify({ error: "Model 'x' not found" }))).kind, "not_found");
  assert.equal(toolError(result("Server busy")).kind, "too_many");
  assert.equal(toolError(result(JSON.stringify({ error: "Schema violation" }))).kind, "schema_violation");
  assert.equal(toolError(result("nope", { "svc/errorKind": "toString" })).kind, "bad_request");
  assert.equal(toolError(result("nope", { "svc/errorKind": 404 })).kind, "bad_request");
});

/**
 * Children of an `mcp` repository started in memory: each a server answering every tool with `answer()` and
 * taking state subscriptions; `refuse` makes the next start fail, `exit()` ends the latest child.
 */
function memoryChildren(
  answer: () => CallToolResult | Promise<CallToolResult> = () => ({
    content: [{ type: "text", text: "{}" }],
  }),
) {
  const children = {
    refuse: false,
    subscribed: [] as string[],
    /** URIs whose model is gone: subscribing is refused as an unknown resource. */
    gone: new Set<string>(),
    latest: null as { server: Server; transport: InMemoryTransport } | null,
    transport() {
      if (children.refuse) throw new Error("spawn failed");
      const [client, child] = InMemoryTransport.createLinkedPair();
      const server = new Server({ name: "child", version: "1" }, {
        capabilities: { tools: {}, resources: { subscribe: true } },
      });
      server.setRequestHandler(CallToolRequestSchema, () => answer());
      server.setRequestHandler(SubscribeRequestSchema, ({ params }) => {
        if (children.gone.has(params.uri)) throw new McpError(RESOURCE_NOT_FOUND, `Unknown ${params.uri}`);
        children.subscribed.push(params.uri);
        return {};
      });
      void server.connect(child);
      children.latest = { server, transport: child };
      return client;
    },
    exit: () => children.latest!.transport.close(),
  };
  return children;
}

/** Timers kept for the test to fire. */
function heldTimers() {
  const held: { run: () => void; ms: number }[] = [];
  return {
    scheduler: {
      setTimeout: (run: () => void, ms: number) => held.push({ run, ms }),
      clearTimeout: () => {},
    },
    delays: () => held.map((t) => t.ms),
    /** Waits for the one timer of `ms`, then runs it. */
    async fire(ms: number) {
      await until(() => Promise.resolve(held.map((t) => t.ms)), (d) => d.length === 1, `a timer of ${ms} ms`);
      const [timer] = held.splice(0, 1);
      assert.equal(timer.ms, ms);
      timer.run();
    },
  };
}

Deno.test("mcp repository lookup: not found is a miss, a failure our 502, a child that does not start a miss", async () => {
  let answer = new ServiceError("not_found", "Model 'fx' not found");
  const children = memoryChildren(() => toolFailure(answer));
  const repository = kidRepository(children);
  try {
    assert.equal(await repository.fetch("fx"), null);
    for (const kind of ["internal", "unavailable", "too_many"] as ErrorKind[]) {
      answer = new ServiceError(kind, "down");
      await assert.rejects(repository.fetch("fx"), (err: ServiceError) => {
        assert.equal(err.kind, "bad_gateway");
        assert.equal(
          err.message,
          `Repository 'kid' failed to look up 'fx' (it answered ${STATUS_OF_KIND[kind]}): down`,
        );
        return true;
      });
    }
    await repository.close?.();
    children.refuse = true;
    await assert.rejects(repository.fetch("fx"), (err: ServiceError) => {
      assert.notEqual(err.kind, "bad_gateway", "a miss the resolution goes on from");
      assert.equal(err.message, "Repository 'kid' did not answer: did not start: spawn failed");
      return true;
    });
  } finally {
    await repository.close?.();
  }
});

Deno.test("mcp repository lookup: a child whose own server does not answer (svc mcp --url) is a miss too", async () => {
  // The failures an `svc mcp --url` child relays when its server is unreachable or silent, made as it makes them.
  const request = new Request("http://hub.test/models/fx/spec");
  const unreachable = () => Promise.reject(new TypeError("connection refused"));
  const silent = (r: Request) =>
    new Promise<Response>((_, reject) => r.signal.onabort = () => reject(r.signal.reason));
  const failures: ServiceError[] = await Promise.all([
    fetchWithin(unreachable, request, "http://hub.test").then(() => assert.fail("reached"), (err) => err),
    fetchWithin(silent, request, "http://hub.test", 1).then(() => assert.fail("answered"), (err) => err),
  ]);
  let answer = failures[0];
  const children = memoryChildren(() => toolFailure(answer));
  const repository = kidRepository(children);
  try {
    for (answer of failures) {
      await assert.rejects(repository.fetch("fx"), (err: ServiceError) => {
        assert.notEqual(err.kind, "bad_gateway", `a miss the resolution goes on from: ${err.message}`);
        assert.equal(err.message, `Repository 'kid' did not answer: ${answer.message}`);
        return true;
      });
    }
    assert.match(failures[0].message, /^Cannot reach the server at http:\/\/hub\.test: connection refused$/);
    assert.match(failures[1].message, /^The server at http:\/\/hub\.test did not answer within 1 ms$/);
    // A failure of the child's server that is an answer (its 500) stays our 502.
    answer = new ServiceError("internal", "Cannot look up the model: disk full");
    await assert.rejects(repository.fetch("fx"), (err: ServiceError) => err.kind === "bad_gateway");
    // Told by type, not by wording: the same message as an answer is our 502, a reworded no answer a miss.
    answer = new ServiceError("internal", failures[0].message);
    await assert.rejects(repository.fetch("fx"), (err: ServiceError) => err.kind === "bad_gateway");
    answer = new NoAnswerError("unavailable", "Nobody home at http://hub.test");
    await assert.rejects(repository.fetch("fx"), (err: ServiceError) => {
      assert.equal(err.message, "Repository 'kid' did not answer: Nobody home at http://hub.test");
      return err.kind !== "bad_gateway";
    });
  } finally {
    await repository.close?.();
  }
});

Deno.test("mcp repository watch: a child that exits is started again; one not back is reported, then ended", async () => {
  const children = memoryChildren();
  const timers = heldTimers();
  const repository = kidRepository(children, timers);
  const changes: string[][] = [];
  const problems: [string, boolean][] = [];
  const stop = await repository.watch!(
    "fx",
    (paths) => changes.push(paths),
    (p, final) => problems.push([p, final]),
  );
  const heard = (count: number) =>
    until(() => Promise.resolve(changes.length), (n) => n >= count, `${count} changes`);
  try {
    await children.latest!.server.sendResourceUpdated({ uri: "svc://state/fx" });
    await heard(1);

    // Back at once: subscribed again, everything read again, nothing reported.
    const subscriptions = children.subscribed.length;
    await children.exit();
    await timers.fire(1000);
    await heard(2);
    assert.deepEqual(changes[1], ["$"]);
    assert.ok(children.subscribed.length > subscriptions, "subscribed again");
    assert.deepEqual(problems, []);
    await children.latest!.server.sendResourceUpdated({ uri: "svc://state/fx" });
    await heard(3);

    // Not back at the first restart: reported once; back at the second.
    await children.exit();
    children.refuse = true;
    await timers.fire(1000);
    await until(() => Promise.resolve(problems.length), (n) => n === 1, "the interruption reported");
    assert.deepEqual(problems, [["feed interrupted: Repository 'kid': did not start: spawn failed", false]]);
    children.refuse = false;
    await timers.fire(2000);
    await heard(4);
    assert.equal(problems.length, 1);

    // Gone for good: six failed restarts end the watch.
    await children.exit();
    children.refuse = true;
    for (const ms of [1000, 2000, 4000, 8000, 16000, 32000]) await timers.fire(ms);
    await until(() => Promise.resolve(problems.length), (n) => n === 3, "the end reported");
    assert.deepEqual(problems.slice(1), [
      ["feed interrupted: Repository 'kid': did not start: spawn failed", false],
      [
        "feed ended: Repository 'kid': Live updates stopped after 6 failed restarts: did not start: spawn failed",
        true,
      ],
    ]);
    assert.deepEqual(timers.delays(), [], "no restart after the sixth");
  } finally {
    stop();
    await repository.close?.();
  }
});

Deno.test("mcp repository watch: a model gone from the restarted child ends its watch alone, read again", async () => {
  const children = memoryChildren();
  const timers = heldTimers();
  const repository = kidRepository(children, timers);
  const heard: Record<string, string[][]> = { fx: [], old: [] };
  const problems: string[] = [];
  const stops = await Promise.all(
    ["fx", "old"].map((id) =>
      repository.watch!(id, (paths) => heard[id].push(paths), (problem) => problems.push(problem))
    ),
  );
  try {
    children.gone.add("svc://state/old");
    await children.exit();
    await timers.fire(1000);
    await until(() => Promise.resolve(heard.fx.length), (n) => n === 1, "fx read again");
    assert.deepEqual(heard, { fx: [["$"]], old: [["$"]] }, "each read again once");
    assert.deepEqual(problems, []);
    // The gone model's watch ended; the other one still hears its child.
    await children.latest!.server.sendResourceUpdated({ uri: "svc://state/old" });
    await children.latest!.server.sendResourceUpdated({ uri: "svc://state/fx" });
    await until(() => Promise.resolve(heard.fx.length), (n) => n === 2, "fx changed");
    assert.equal(heard.old.length, 1);
  } finally {
    for (const stop of stops) stop();
    await repository.close?.();
  }
});

Deno.test("mcp repository watch: the child a watch starts sees one subscription of the model", async () => {
  const children = memoryChildren();
  const repository = kidRepository(children);
  const stop = await repository.watch!("fx", () => {});
  try {
    assert.deepEqual(children.subscribed, ["svc://state/fx"]);
    // A second watch of the model on the running child subscribes nothing more; another model once.
    const stops = [await repository.watch!("fx", () => {}), await repository.watch!("gx", () => {})];
    for (const more of stops) more();
    assert.deepEqual(children.subscribed, ["svc://state/fx", "svc://state/gx"]);
  } finally {
    stop();
    await repository.close?.();
  }
});

Deno.test("mcp repository lookup: a child silent past the configured lookupTimeoutMs did not answer, a miss", async () => {
  const children = memoryChildren(() => new Promise<CallToolResult>(() => {}));
  const repository = kidRepository(children, undefined, 20);
  try {
    await assert.rejects(repository.fetch("fx"), (err: ServiceError) => {
      assert.notEqual(err.kind, "bad_gateway", "a miss the resolution goes on from");
      // Worded as an http repository's timeout: who did not answer, and within how long.
      assert.equal(
        err.message,
        "Repository 'kid' did not answer: The child 'unused' did not answer get_spec within 20 ms",
      );
      return true;
    });
  } finally {
    await repository.close?.();
  }
});

Deno.test("mcp repository link: a child silent past the request timeout is unavailable (503), as an http server", async () => {
  const children = memoryChildren(() => new Promise<CallToolResult>(() => {}));
  const repository = kidRepository(children);
  // The watch starts the child (its initialize answered) before the client's 60 s timeouts come due at once.
  const stop = await repository.watch!("fx", () => {});
  try {
    await withTimeoutsDue(
      60_000,
      () =>
        assert.rejects(repository.read!("fx", "$.a", new AbortController().signal), (err: ServiceError) => {
          assert.equal(err.kind, "unavailable");
          assert.equal(STATUS_OF_KIND[err.kind], 503);
          assert.equal(
            err.message,
            "Repository 'kid': The child 'unused' did not answer get_state within 60000 ms",
          );
          return true;
        }),
    );
  } finally {
    stop();
    await repository.close?.();
  }
});

Deno.test("mcp repository link: a call its caller cancels says it was cancelled, not that the child timed out", async () => {
  let asked = () => {};
  const children = memoryChildren(() => {
    asked();
    return new Promise<CallToolResult>(() => {});
  });
  const repository = kidRepository(children);
  const stop = await repository.watch!("fx", () => {});
  try {
    const message = "Repository 'kid': get_state was cancelled before the child answered";
    // Cancelled before the call went out, and while the child has it (the SDK's own wording: a timeout).
    const early = new AbortController();
    const before = repository.read!("fx", "$.a", early.signal);
    early.abort();
    await assert.rejects(before, { message });
    const late = new AbortController();
    const reached = new Promise<void>((resolve) => (asked = resolve));
    const waiting = repository.read!("fx", "$.a", late.signal);
    await reached;
    late.abort();
    await assert.rejects(waiting, { message });
  } finally {
    stop();
    await repository.close?.();
  }
});
