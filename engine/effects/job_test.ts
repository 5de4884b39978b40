import assert from "node:assert/strict";
import type { EffectRequest } from "../runtime/results.ts";

const request: EffectRequest = {
  effectId: "remind",
  executor: "timer",
  key: null,
  work: { type: "timer", fireAt: 2_000 },
  definition: { id: "remind", trigger: "true", executor: "timer" },
};

Deno.test("two processes sharing a store fire the same effect in the same millisecond: two job ids", async () => {
  // Each import under its own URL is a module of its own, as in another process or tab: its count starts at 0.
  const first = await import(new URL("./job.ts?process=a", import.meta.url).href);
  const second = await import(new URL("./job.ts?process=b", import.meta.url).href);
  const [a] = first.jobsOf("m", [request], 1_000);
  const [b] = second.jobsOf("m", [request], 1_000);
  assert.match(a.id, /^remind@1000#/);
  assert.notEqual(a.id, b.id);
});

Deno.test("one process's jobs of one millisecond get ids of their own", async () => {
  const { jobsOf } = await import("./job.ts");
  const ids = jobsOf("m", [request, request, request], 1_000).map((job: { id: string }) => job.id);
  assert.equal(new Set(ids).size, 3);
});
