/**
 * The console whose reader goes away (`svc console | head -1`): it stops
 * quietly, exit 0, as a pipe's writer does, not with a stack trace.
 */
import assert from "node:assert/strict";
import { CLI_MAIN } from "./helpers.ts";

Deno.test("console: a reader that closes stdout ends the console quietly", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI_MAIN, "console"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "", NO_COLOR: "1" },
  }).spawn();
  const writer = child.stdin.getWriter();
  const line = new TextEncoder().encode('{"cmd":"list-models"}\n');
  await writer.write(line);
  // Read the first answer, then close the reading end, as `head -1` does.
  const reader = child.stdout.getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /^\{"ok":true,"result":\[\]\}/);
  await reader.cancel();
  // More commands: their answers go nowhere. Writing stops once the console has ended.
  try {
    for (let i = 0; i < 200; i++) await writer.write(line);
    await writer.close();
  } catch {
    // The console ended before reading them all.
  }
  const [status, stderr] = await Promise.all([child.status, new Response(child.stderr).text()]);
  assert.equal(stderr, "");
  assert.equal(status.code, 0);
});
