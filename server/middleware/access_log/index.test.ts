import assert from "node:assert/strict";
import { Hono } from "hono";
import { accessLog } from "./index.ts";

Deno.test("one line per request, credentials in the query masked, headers never logged", async () => {
  const lines: string[] = [];
  const log = { info: (m: string) => lines.push(m), warn: () => {}, error: () => {} };
  let t = 0;
  const app = new Hono();
  app.use("*", accessLog(log, () => (t += 2.5)));
  app.get("*", (c) => c.text("ok"));
  const res = await app.request("/models/a/subscribe?paths=%24.x&token=sup3rsecret", {
    headers: { Authorization: "Bearer sup3rsecret" },
  });
  await res.body?.cancel();
  assert.deepEqual(lines, [
    "GET /models/a/subscribe?paths=%24.x&token=***** 200 2.5ms".replace("*****", "***"),
  ]);
  assert.ok(!lines.join().includes("sup3rsecret"));
});
