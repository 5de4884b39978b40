/**
 * The README's first screen runs as it is shown: each `curl` of its first
 * block against a server (the answer after `#`, its status when one is
 * written, `...` standing for anything), and each console command of its
 * console block (the `{"ok":…}` line after it). A newcomer copies these
 * first; an answer that drifted would lose them at once.
 */
import assert from "node:assert/strict";
import { handleConsoleLine } from "../cli/console.ts";
import { ModelService } from "../engine/service/service.ts";
import { call, startTestServer } from "./server/helpers.ts";

const README = await Deno.readTextFile(new URL("../README.md", import.meta.url));
const FIRST_SCREEN = README.slice(0, README.indexOf("\n## "));
const BLOCKS = [...FIRST_SCREEN.matchAll(/^```sh\n([\s\S]*?)^```/gm)].map((m) => m[1]);

/** One shell command of a block: its words, and the comment that follows it (same line or the next). */
interface Command {
  words: string[];
  comment: string;
}

/** Splits a block as a shell would: single quotes may span lines, `\` joins lines, `#` starts a comment. */
function commands(block: string): Command[] {
  const out: Command[] = [];
  let words: string[] = [];
  let word: string | null = null;
  const end = () => {
    if (word !== null) words.push(word);
    word = null;
  };
  for (let i = 0; i < block.length; i++) {
    const char = block[i];
    if (char === "'") {
      const close = block.indexOf("'", i + 1);
      word = (word ?? "") + block.slice(i + 1, close);
      i = close;
    } else if (char === "\\" && block[i + 1] === "\n") {
      end();
      i++;
    } else if (char === "#" && word === null) {
      const stop = block.indexOf("\n", i);
      const comment = block.slice(i + 1, stop).trim();
      if (words.length) out.push({ words, comment });
      else if (out.length) out.at(-1)!.comment = comment;
      words = [];
      i = stop - 1;
    } else if (char === " " || char === "\n") {
      end();
      if (char === "\n" && words.length) {
        out.push({ words, comment: "" });
        words = [];
      }
    } else word = (word ?? "") + char;
  }
  return out;
}

/** An answer as the README writes it: `...` is anything, the rest literal. */
function answerPattern(text: string): RegExp {
  const literal = text.split("...").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${literal.join(".*?")}$`, "s");
}

Deno.test("the README's first curl block answers as its comments say", async () => {
  const curls = commands(BLOCKS.find((block) => block.includes("curl"))!);
  assert.ok(curls.length >= 6, `${curls.length} curl commands`);
  const server = await startTestServer();
  try {
    for (const { words, comment } of curls) {
      assert.equal(words[0], "curl");
      const option = (name: string) => words.includes(name) ? words[words.indexOf(name) + 1] : undefined;
      const body = option("-d");
      const method = option("-X") ?? (body === undefined ? "GET" : "POST");
      const url = words.find((w) => w.startsWith("localhost:"))!;
      const path = url.slice(url.indexOf("/"));
      const reply = await call(server.url, method, path, body);
      const [, status, answer] = /^(?:(\d{3}) )?(.*)$/s.exec(comment)!;
      const where = `${method} ${path}: ${reply.status} ${reply.text}`;
      if (status) assert.equal(reply.status, Number(status), where);
      else assert.ok(reply.status < 300, where);
      if (answer) assert.match(reply.text, answerPattern(answer), where);
    }
  } finally {
    await server.close();
  }
});

Deno.test("the README's first console session answers as shown", async () => {
  const lines = BLOCKS.find((block) => block.includes("task -q console"))!.split("\n").slice(1, -1);
  assert.ok(lines.length >= 6 && lines.length % 2 === 0, `${lines.length} lines`);
  const service = await ModelService.open();
  try {
    for (let i = 0; i < lines.length; i += 2) {
      const { reply } = await handleConsoleLine(service, lines[i]);
      assert.match(JSON.stringify(reply), answerPattern(lines[i + 1]), lines[i]);
    }
  } finally {
    await service.close();
  }
});
