/**
 * Fuzzing the write routes: random JSON values, addresses and patches (a fixed
 * seed, a bounded count) against a real server on Deno KV. Every request either
 * commits (2xx) or is refused with a 4xx that changes nothing; never a 5xx;
 * and whatever committed reloads byte-identical after a restart.
 */
import assert from "node:assert/strict";
import { call, startTestServer } from "./helpers.ts";

const REQUESTS = 160;

/** A small deterministic PRNG (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SPEC = {
  id: "fuzz",
  schema: {
    type: "object",
    properties: {
      n: { type: "number", maximum: 1e6 },
      s: { type: "string", maxLength: 50 },
      arr: { type: "array" },
      obj: { type: "object" },
    },
  },
  derivations: [
    { path: "$.total", expr: "$sum(arr[$type($) = 'number'])" },
    { path: "$.label", expr: "$exists(s) ? $uppercase(s) & ':' & $string(n) : null" },
  ],
};

function generator(next: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const scalar = (): string =>
    pick([
      () => "null",
      () => "true",
      () => String(Math.floor(next() * 2000) - 1000),
      () => String(next() * 1e6),
      () => pick(["1e309", "-1e400", "1e308", "-0", "0.1", "123456789012345678901234567890"]),
      () => JSON.stringify(pick(["", "x", "é😀", "a".repeat(60), "__proto__", '\u0000\n\t"', "$now()"])),
    ])();
  const value = (depth: number): string => {
    if (depth > 3 || next() < 0.5) return scalar();
    if (next() < 0.1) return "[".repeat(200) + "]".repeat(200);
    const size = Math.floor(next() * 4);
    if (next() < 0.5) return `[${Array.from({ length: size }, () => value(depth + 1)).join(",")}]`;
    const keys = ["a", "b", "__proto__", "odd key", "constructor"];
    return `{${
      Array.from({ length: size }, () => `${JSON.stringify(pick(keys))}:${value(depth + 1)}`).join(",")
    }}`;
  };
  const address = (): string =>
    pick([
      "$.n",
      "$.s",
      "$.arr",
      `$.arr[${pick([0, 1, 2, 5, 50, 2_000_000])}]`,
      "$.obj",
      "$.obj.a",
      "$.obj['odd key']",
      "$.obj.__proto__",
      "$.total",
      "$.missing.deep[3].x",
      "$..x",
      "arr[0]",
      "$",
    ]);
  const pointer = (): string =>
    pick([
      "/n",
      "/s",
      "/arr",
      "/arr/0",
      "/arr/-",
      "/arr/9",
      "/obj",
      "/obj/a",
      "/obj/odd key",
      "/total",
      "",
      "/x/y",
    ]);
  const mutation = (): string =>
    `{${
      Array.from({ length: 1 + Math.floor(next() * 3) }, () => `${JSON.stringify(address())}:${value(0)}`)
    }}`;
  const patch = (): string => {
    const ops = Array.from({ length: 1 + Math.floor(next() * 3) }, () => {
      const op = pick(["add", "remove", "replace", "move", "copy", "test", "bogus"]);
      const from = op === "move" || op === "copy" ? `,"from":${JSON.stringify(pointer())}` : "";
      return `{"op":"${op}","path":${JSON.stringify(pointer())}${from},"value":${value(0)}}`;
    });
    return `[${ops.join(",")}]`;
  };
  return { mutation, patch, pick };
}

Deno.test("fuzzed writes either commit and reload identically, or are refused with a 4xx that changes nothing", async () => {
  const dir = await Deno.makeTempDir({ prefix: "svc-fuzz-" });
  const keys = { "svc.storage.type": "kv", "svc.persistence-dir": dir };
  try {
    let committed = "";
    const first = await startTestServer(keys);
    try {
      const base = first.url;
      assert.equal((await call(base, "POST", "/models", SPEC)).status, 201);
      const { mutation, patch } = generator(random(20261123));
      let current = (await call(base, "GET", "/models/fuzz/state")).text;
      const outcomes = { committed: 0, refused: 0 };
      for (let i = 0; i < REQUESTS; i++) {
        const isPatch = i % 3 === 2;
        const body = isPatch ? patch() : mutation();
        const reply = await call(
          base,
          "POST",
          isPatch ? "/models/fuzz/mutations/patch" : "/models/fuzz/mutations",
          body,
          { "content-type": isPatch ? "application/json-patch+json" : "application/json" },
        );
        assert.ok(reply.status < 500, `request ${i} ${body} answered ${reply.status}: ${reply.text}`);
        const after = (await call(base, "GET", "/models/fuzz/state")).text;
        if (reply.status < 300) {
          outcomes.committed++;
          current = after;
        } else {
          outcomes.refused++;
          assert.equal(
            after,
            current,
            `request ${i} ${body} was refused (${reply.status}) but changed the state`,
          );
        }
      }
      assert.ok(outcomes.committed > 10 && outcomes.refused > 10, JSON.stringify(outcomes));
      committed = current;
    } finally {
      await first.close();
    }
    const second = await startTestServer(keys);
    try {
      assert.equal((await call(second.url, "GET", "/models/fuzz/state")).text, committed);
      assert.ok(!second.logs.some((line) => line.includes("RECOVERY")), second.logs.join("\n"));
    } finally {
      await second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
