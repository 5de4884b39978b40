/**
 * Results over the size limit through the real `svc mcp` process: a committed
 * write's is cut down and still a success (withholding it would invite a retry
 * that applies the write twice); a blob comes back whole, as it went in (in
 * embedded mode there is no other way to read it).
 */
import assert from "node:assert/strict";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { connectStdio, textOf } from "./helpers.ts";

Deno.test("a committed write with an oversized result is a cut-down success, applied once", async () => {
  const { client, close } = await connectStdio();
  try {
    const call = (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
    await call("create_model", { spec: { id: "wide", schema: { type: "object" } } });
    const mutations = Object.fromEntries(Array.from({ length: 4000 }, (_, i) => [`$.field_${i}`, i]));
    const written = await call("mutate", { id: "wide", mutations, includeTraces: true });
    assert.equal(written.isError, false);
    const body = textOf(written) as {
      truncated: boolean;
      omitted: Record<string, number>;
      mutatedPaths: string[];
    };
    assert.equal(body.truncated, true);
    assert.equal(body.omitted.mutatedPaths + body.mutatedPaths.length, 4000);
    assert.equal("traces" in body, false);
    assert.deepEqual(textOf(await call("get_field", { id: "wide", path: "$.field_3999" })), 3999);
    const history = textOf(await call("get_history", { id: "wide" })) as unknown[];
    assert.equal(history.length, 1);
  } finally {
    await close();
  }
});

Deno.test("download_blob gives back a blob over the ~50 KB result limit whole", async () => {
  const { client, close } = await connectStdio();
  try {
    const bytes = crypto.getRandomValues(new Uint8Array(60_000));
    const data = btoa(String.fromCharCode(...bytes));
    const ref = textOf(
      await client.callTool({ name: "upload_blob", arguments: { data } }) as CallToolResult,
    ) as {
      $blobId: string;
    };
    const read = await client.callTool({
      name: "download_blob",
      arguments: { blobId: ref.$blobId },
    }) as CallToolResult;
    assert.equal(read.isError, false);
    assert.equal((read.structuredContent as { data: string }).data, data);
  } finally {
    await close();
  }
});

/** Arguments a hint names: quoted (`limit`), or get_state's and get_audit's named bare. */
const NAMED_ARGUMENT = /`(\w+)`|\b(paths|depth|limit)\b/g;

Deno.test("a withheld read's hint names only arguments that tool (or the tool it points to) takes", async () => {
  const { client, close } = await connectStdio();
  try {
    const tools = new Map((await client.listTools()).tools.map((t) => [t.name, t]));
    const takes = (tool: string, arg: string) =>
      Object.hasOwn(tools.get(tool)?.inputSchema.properties ?? {}, arg);
    const call = (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
    const items = Array.from({ length: 3000 }, (_, i) => ({ q: i }));
    const spec = {
      id: "big",
      schema: { type: "object" },
      derivations: [{ path: "$.n", expr: "$count(items)" }],
    };
    await call("create_model", { spec });
    await call("mutate", { id: "big", mutations: { "$.items": items } });
    const withheld: [string, Record<string, unknown>][] = [
      ["get_field", { id: "big", path: "$.items" }],
      ["snapshot", { id: "big" }],
      ["get_state", { id: "big" }],
      ["eval_expression", { expr: "[0..20000]" }],
      ["test_spec", {
        spec: { ...spec, tests: [{ description: "x", given: { "$.items": items }, expect: {} }] },
      }],
    ];
    for (const [name, args] of withheld) {
      const result = await call(name, args);
      const { error, hint } = result.structuredContent as { error: string; hint: string };
      assert.equal(error, "Result too large", name);
      // An argument named in the hint is this tool's, or that of a tool the hint names.
      const pointedTo = [...tools.keys()].filter((tool) => new RegExp(`\\b${tool}\\b`).test(hint));
      for (const [, quoted, bare] of hint.matchAll(NAMED_ARGUMENT)) {
        const arg = quoted ?? bare;
        assert.ok(
          takes(name, arg) || pointedTo.some((tool) => takes(tool, arg)),
          `${name}'s hint names '${arg}', which it does not take: ${hint}`,
        );
      }
    }
  } finally {
    await close();
  }
});
