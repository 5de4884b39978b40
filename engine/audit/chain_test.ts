import assert from "node:assert/strict";
import { canonicalJson, stringifiesCanonically } from "../json/canonical.ts";
import { webPlatform } from "../ports.ts";
import { withBrowserProtoAccessor } from "../_test_utils.ts";
import {
  type AuditBody,
  type AuditRecord,
  GENESIS_HASH,
  hashRecord,
  loggedWriteDisagreement,
  sealRecord,
  verifyChain,
} from "./chain.ts";

const hasher = webPlatform().hasher;

function body(sequence: number, extra: Partial<AuditBody> = {}): AuditBody {
  return {
    modelId: "m",
    sequence,
    timestamp: `2024-01-01T00:00:0${sequence}.000Z`,
    modelVersion: "1.0.0",
    source: "client",
    mutations: { "$.qty": sequence },
    derivedUpdated: ["$.total"],
    flaggedConstraints: [],
    dispatchedEffects: [],
    traces: [],
    ...extra,
  };
}

async function chain(length: number): Promise<AuditRecord[]> {
  const records: AuditRecord[] = [];
  let prev = GENESIS_HASH;
  for (let i = 0; i < length; i++) {
    const record = await sealRecord(body(i), prev, hasher);
    records.push(record);
    prev = record.hash;
  }
  return records;
}

/** SHA-256 hex computed here, independently of the engine's hasher. */
async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("the first record chains to 64 zeros", async () => {
  assert.equal(GENESIS_HASH, "0".repeat(64));
  const [first, second] = await chain(2);
  assert.equal(first.prevHash, GENESIS_HASH);
  assert.equal(second.prevHash, first.hash);
  assert.match(first.hash, /^[0-9a-f]{64}$/);
});

Deno.test("hash = hex(SHA-256(prevHash + '\\n' + canonical JSON of the record without prevHash and hash))", async () => {
  const record = await sealRecord(
    body(0, { mutations: { "$.b": 1, "$.a": [1, { z: 2, y: "é" }] } }),
    GENESIS_HASH,
    hasher,
  );
  const canonical =
    '{"derivedUpdated":["$.total"],"dispatchedEffects":[],"flaggedConstraints":[],"modelId":"m","modelVersion":"1.0.0",' +
    '"mutations":{"$.a":[1,{"y":"é","z":2}],"$.b":1},"sequence":0,"source":"client",' +
    '"timestamp":"2024-01-01T00:00:00.000Z","traces":[]}';
  assert.equal(record.hash, await sha256(GENESIS_HASH + "\n" + canonical));
  assert.equal(await hashRecord(body(0), GENESIS_HASH, hasher), (await chain(1))[0].hash);
});

Deno.test("verifyChain accepts an intact chain and an empty one", async () => {
  assert.deepEqual(await verifyChain(await chain(4), hasher), {
    valid: true,
    recordsChecked: 4,
    firstBrokenSequence: null,
    detail: "ok",
  });
  assert.deepEqual(await verifyChain([], hasher), {
    valid: true,
    recordsChecked: 0,
    firstBrokenSequence: null,
    detail: "ok",
  });
});

Deno.test("verifyChain detects an altered record and names its sequence", async () => {
  const records = await chain(4);
  records[2] = { ...records[2], mutations: { "$.qty": 999 } };
  const result = await verifyChain(records, hasher);
  assert.equal(result.valid, false);
  assert.equal(result.firstBrokenSequence, 2);
  assert.equal(result.recordsChecked, 3);
  assert.match(result.detail, /content hash mismatch \(the record was altered\)/);
});

Deno.test("verifyChain detects a record whose stored hash was rewritten", async () => {
  const records = await chain(3);
  records[1] = { ...records[1], hash: "f".repeat(64) };
  const result = await verifyChain(records, hasher);
  assert.equal(result.firstBrokenSequence, 1);
  assert.match(result.detail, /altered/);
});

Deno.test("verifyChain detects reordered records", async () => {
  const records = await chain(4);
  [records[1], records[2]] = [records[2], records[1]];
  const result = await verifyChain(records, hasher);
  assert.equal(result.valid, false);
  assert.equal(result.firstBrokenSequence, 2, "the record found at position 1 carries sequence 2");
  assert.match(result.detail, /reordered or deleted/);
});

Deno.test("verifyChain detects a deleted record", async () => {
  const records = await chain(4);
  records.splice(1, 1);
  const result = await verifyChain(records, hasher);
  assert.equal(result.valid, false);
  assert.equal(result.firstBrokenSequence, 1, "the deleted sequence is named");
  assert.match(result.detail, /sequence 1 is missing: the record was deleted \(the next stored is 2\)/);
});

Deno.test("verifyChain detects a deleted record whose successor was renumbered", async () => {
  const records = await chain(3);
  const renumbered = { ...records[2], sequence: 1 };
  const result = await verifyChain([records[0], renumbered], hasher);
  assert.equal(result.firstBrokenSequence, 1);
  assert.match(result.detail, /prevHash mismatch/);
});

Deno.test("verifyChain detects a deleted head (first record removed)", async () => {
  const records = await chain(2);
  const result = await verifyChain(records.slice(1), hasher);
  assert.equal(result.valid, false);
  assert.equal(result.firstBrokenSequence, 0);
});

Deno.test("records with traces, and bodies of any other shape, hash their canonical JSON", async () => {
  const trace = {
    targetPath: "$.items[0].total",
    expression: "price * qty",
    inputPaths: ["$.items[*].price", "$.items[*].qty"],
    result: { z: [1, 2], a: 'é\n"' },
    constraintPassed: null,
    errorMessage: null,
  };
  const failed = { ...trace, result: null, constraintPassed: false, errorMessage: "T2001 \u2028" };
  const bodies: AuditBody[] = [
    body(3, { traces: [trace, failed], flaggedConstraints: ["c"], dispatchedEffects: ["e"] }),
    // Read back with a member added or removed: hashed the general way, same canonical JSON.
    { ...body(4), extra: { b: 1, a: 2 } } as AuditBody,
    (({ traces: _t, ...rest }) => rest)(body(5)) as AuditBody,
    body(6, { traces: [{ ...trace, extra: 1 } as typeof trace] }),
    // Six members, one of them in place of `result`: hashed with it, as canonical JSON writes the trace.
    body(8, {
      traces: [(({ result: _r, ...rest }) => ({ ...rest, extra: 1 }))(trace) as unknown as typeof trace],
    }),
    body(7, { mutations: { "$.x": undefined as unknown as number } }),
  ];
  for (const b of bodies) {
    assert.equal(
      await hashRecord(b, GENESIS_HASH, hasher),
      await sha256(GENESIS_HASH + "\n" + canonicalJson(b)),
      JSON.stringify(b),
    );
  }
});

Deno.test("a sealed body's text is byte for byte canonicalJson's, whichever way it is written", async () => {
  let seed = 5;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)];
  const keys = ["a", "b", "B", "é", "$.x[0]", "", "10", "9", "__proto__"];
  const value = (depth: number): unknown => {
    const roll = next();
    if (depth > 2 || roll < 0.5) {
      return pick([null, true, 0, -0, 2.5, 1e21, NaN, "s", 'q"\n\u2028', undefined]);
    }
    if (roll < 0.75) return Array.from({ length: Math.floor(next() * 3) }, () => value(depth + 1));
    const out: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 3); i > 0; i--) {
      Object.defineProperty(out, pick(keys), { value: value(depth + 1), enumerable: true, writable: true });
    }
    return out;
  };
  const trace = () => ({
    targetPath: pick(["$.total", "$.items[3].lineTotal"]),
    expression: "price * qty",
    inputPaths: pick([["$.items[*].price", "$.items[*].qty"], [], ["$.b", "$.a"]]),
    result: value(0),
    constraintPassed: pick([null, true, false]),
    errorMessage: pick([null, "T2001 \u2028"]),
  });
  // The text the hasher is given, after `prevHash + "\n"`.
  let hashed = "";
  const capture = { sha256Hex: (data: string | Uint8Array) => Promise.resolve(hashed = String(data)) };
  const inOrder = { yes: 0, no: 0 };
  for (let i = 0; i < 2000; i++) {
    const b: Record<string, unknown> = {
      ...body(i, {
        mutations: value(0) as AuditBody["mutations"],
        derivedUpdated: pick([[], ["$.total"], ["$.b", "$.a"]]),
        flaggedConstraints: pick([[], ["cap"]]),
        traces: Array.from({ length: Math.floor(next() * 3) }, trace) as AuditBody["traces"],
      }),
    };
    const roll = next();
    if (roll < 0.05) b.extra = value(0);
    else if (roll < 0.1) delete b[pick(Object.keys(b))];
    else if (roll < 0.15) b.sequence = undefined;
    else if (roll < 0.2 && (b.traces as unknown[]).length) {
      const first = (b.traces as Record<string, unknown>[])[0];
      first.extra = 1;
      // Half of them keep six members: one of the six goes.
      if (next() < 0.5) delete first[pick(Object.keys(first).slice(0, 6))];
    }
    await hashRecord(b as unknown as AuditBody, GENESIS_HASH, capture);
    const canonical = canonicalJson(b);
    assert.equal(hashed, GENESIS_HASH + "\n" + canonical, JSON.stringify(b));
    const values = [b.mutations, ...((b.traces ?? []) as { result: unknown }[]).map((t) => t.result)];
    inOrder[values.every(stringifiesCanonically) ? "yes" : "no"]++;
  }
  assert.ok(
    inOrder.yes > 500 && inOrder.no > 500,
    `both kinds of values were tried: ${JSON.stringify(inOrder)}`,
  );
});

Deno.test("sealing keeps a record's hash: a fixed body hashes as it always has", async () => {
  const record = await sealRecord(
    body(2, {
      mutations: { "$.b": 1, "$.a": { y: [1, 2.5], x: null } },
      derivedUpdated: ["$.total"],
      traces: [{
        targetPath: "$.total",
        expression: "qty * price",
        inputPaths: ["$.qty", "$.price"],
        result: 12.5,
        constraintPassed: null,
        errorMessage: null,
      }],
    }),
    "ab".repeat(32),
    hasher,
  );
  assert.equal(
    record.hash,
    await sha256(
      "ab".repeat(32) + "\n" +
        '{"derivedUpdated":["$.total"],"dispatchedEffects":[],"flaggedConstraints":[],"modelId":"m",' +
        '"modelVersion":"1.0.0","mutations":{"$.a":{"x":null,"y":[1,2.5]},"$.b":1},"sequence":2,' +
        '"source":"client","timestamp":"2024-01-01T00:00:02.000Z","traces":[{"constraintPassed":null,' +
        '"errorMessage":null,"expression":"qty * price","inputPaths":["$.qty","$.price"],"result":12.5,' +
        '"targetPath":"$.total"}]}',
    ),
  );
  assert.deepEqual(Object.keys(record).slice(-2), ["prevHash", "hash"]);
});

Deno.test("a __proto__ member hashes the same under a browser's accessor, in whatever order it was written", async () => {
  const mutations =
    '{"$.z":{"b":1,"__proto__":{"y":2},"a":[{"__proto__":null}]},"__proto__":{"x":1},"$.a":1}';
  const bodyOf = () => body(1, { mutations: JSON.parse(mutations) });
  const expected = await hashRecord(bodyOf(), GENESIS_HASH, hasher);
  assert.equal(expected, await hasher.sha256Hex(GENESIS_HASH + "\n" + canonicalJson(bodyOf())));
  assert.match(
    canonicalJson(bodyOf()),
    /"mutations":\{"\$\.a":1,"\$\.z":\{"__proto__":\{"y":2\},"a":\[\{"__proto__":null\}\],"b":1\},"__proto__":\{"x":1\}\}/,
  );
  assert.equal(await withBrowserProtoAccessor(() => hashRecord(bodyOf(), GENESIS_HASH, hasher)), expected);
});

Deno.test("a logged write agrees with its audit record only in request, source and time", async () => {
  const record = await sealRecord(body(3, { mutations: { "$.b": 1, "$.a": [2] } }), GENESIS_HASH, hasher);
  const at = Date.parse(record.timestamp);
  // Key order is not a difference (the record is compared canonically).
  assert.equal(
    loggedWriteDisagreement({ at, source: "client", request: { "$.a": [2], "$.b": 1 } }, record),
    null,
  );
  assert.match(
    loggedWriteDisagreement({ at, source: "client", request: { "$.a": [2], "$.b": 1000000 } }, record)!,
    /^its request disagrees with audit record 3 \(the entry or the record was altered\)$/,
  );
  assert.match(
    loggedWriteDisagreement({ at: at + 1, source: "foldback", request: { "$.a": [2], "$.b": 1 } }, record)!,
    /^its source, time disagrees with audit record 3/,
  );
  assert.equal(
    loggedWriteDisagreement({ at, source: "client", request: {} }, "{garbage"),
    "its audit record is unreadable",
  );
});

Deno.test("a record is sealed at once where the hasher hashes at once, else through its promise, alike", async () => {
  const promiseOnly = { sha256Hex: (data: string | Uint8Array) => hasher.sha256Hex(data) };
  const later = await sealRecord(body(0), GENESIS_HASH, promiseOnly);
  const now = sealRecord(body(0), GENESIS_HASH, hasher);
  assert.ok(!(now instanceof Promise), "no promise stands between a write and its record");
  assert.deepEqual(now, later);
  assert.deepEqual(Object.keys(now), Object.keys(later), "the same members in the same order");
  // Past the hasher's synchronous size it waits for the digest, the same one.
  const large = body(1, { mutations: { "$.text": "x".repeat(5000) } });
  const waited = sealRecord(large, now.hash, hasher);
  assert.ok(waited instanceof Promise);
  assert.deepEqual(await waited, await sealRecord(large, now.hash, promiseOnly));
  assert.equal((await verifyChain([now, await waited], hasher)).valid, true);
});
