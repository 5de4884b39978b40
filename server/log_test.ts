import assert from "node:assert/strict";
import { consoleLogger, oneLine } from "./log.ts";

Deno.test("oneLine escapes control characters and line separators, leaving other text as it is", () => {
  assert.equal(oneLine("plain text, 'quoted' … ünïcödé"), "plain text, 'quoted' … ünïcödé");
  assert.equal(oneLine("a\nb\r\tc"), "a\\nb\\r\\tc");
  assert.equal(oneLine("\x1b[31mred\x1b[0m"), "\\u001b[31mred\\u001b[0m");
  assert.equal(oneLine("\x00\x7f\x85\u2028\u2029"), "\\u0000\\u007f\\u0085\\u2028\\u2029");
});

Deno.test("a hostile message is one log line: no forged line, no terminal escape", () => {
  const lines: string[] = [];
  const [log, error] = [console.log, console.error];
  console.log = console.error = (line: string) => lines.push(line);
  try {
    const hostile = "model 'x\nerror: forged line' not loaded\x1b]0;title\x07";
    consoleLogger.info(hostile);
    consoleLogger.warn(hostile);
    consoleLogger.error(hostile);
  } finally {
    [console.log, console.error] = [log, error];
  }
  assert.equal(lines.length, 3);
  for (const line of lines) assert.doesNotMatch(line, /\p{Cc}/u);
  assert.equal(lines[1], "warning: model 'x\\nerror: forged line' not loaded\\u001b]0;title\\u0007");
});
