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
