/**
 * `svc serve` keeps serving after a promise rejection nobody handled (Deno
 * would end the process: every tenant's service for one stray promise), and
 * logs it on one line, a URL's password masked (server/unhandled_rejections.ts).
 *
 * @module
 */
import assert from "node:assert/strict";
import { describeRejection } from "../../server/unhandled_rejections.ts";
import { spawnServe } from "./helpers.ts";

Deno.test("svc serve logs an unhandled rejection on one line and keeps serving", async () => {
  const server = await spawnServe({
    script: new URL("./stray_rejection_serve.ts", import.meta.url).pathname,
    env: { SVC_STORAGE_TYPE: "memory" },
  });
  let status: number | null = null;
  let stopped: { code: number; stderr: string };
  try {
    if (server.url) {
      const answer = await fetch(`${server.url}/models`);
      await answer.body?.cancel();
      status = answer.status;
    }
  } finally {
    stopped = await server.stop();
  }
  const { code, stderr } = stopped;
  assert.ok(server.url, `the rejection ended the process: ${stderr}`);
  assert.equal(status, 200);
  assert.equal(code, 0, stderr);
  const lines = stderr.split("\n").filter((line) => line.includes("unhandled promise rejection"));
  assert.equal(lines.length, 1, stderr);
  assert.match(
    lines[0],
    /^error: unhandled promise rejection \(a bug; still serving\): Error: stray: postgres:\/\/svc:\*\*\*@db:5432\/svc went away \(ECONNRESET\) at /,
  );
  assert.doesNotMatch(stderr, /hunter2/);
});

Deno.test("an unhandled rejection's log line is bounded, cut as every message is", () => {
  const line = describeRejection(new Error("x".repeat(10_000)));
  assert.ok(line.length < 600, `${line.length} characters`);
  assert.match(line, /^Error: x{293}… \(10007 characters\) at /);
  assert.equal(describeRejection("plain"), "plain");
});

Deno.test("a cut inside a URL's password does not show the password's start", () => {
  // The 300-character cut falls inside the password: masked after the cut, no @ was left to find it by.
  const reason = `${"y".repeat(265)} postgres://svc:hunter2hunter2hunter2hunter2@db:5432/svc`;
  const line = describeRejection(reason);
  assert.doesNotMatch(line, /hunter/);
  assert.match(line, /postgres:\/\/svc:\*\*\*@db:5432\/svc$/);
  assert.equal(describeRejection("at https://tok3n@gw.example/v1"), "at https://***@gw.example/v1");
});
