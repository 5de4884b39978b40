/**
 * The audit trail checked by an auditor's verifier (./independent_verifier.ts) that shares no
 * code with the service: real traffic through `svc serve` (create, writes, a rollback refusal,
 * a flagged constraint, a caller effect, a timer's fold-back, a JSON Patch, spec evolution,
 * snapshot and restore) under a signing key, read over REST and MCP; then the journal is
 * tampered with as README "Audit trail" describes, and the auditor's verdict is compared
 * with the service's verify.
 *
 * @module
 */
import assert from "node:assert/strict";
import { spawnServe, startTestServer } from "../server/helpers.ts";
import {
  type AuditorVerdict,
  callMcpTool,
  canonicalJson,
  fetchTrailOverMcp,
  fetchTrailOverRest,
  publicKeyOfSeed,
  type ServedAuditRecord,
  verifyTrail,
} from "./independent_verifier.ts";

const MODEL = "audited";

const spec = {
  id: MODEL,
  version: "1.0.0",
  schema: {
    type: "object",
    properties: {
      qty: { type: "integer", minimum: 0 },
      price: { type: "number" },
      status: { type: "string" },
      note: { type: "string" },
      // Keys whose UTF-16 and code point orders differ: the canonical sort must be pinned.
      "\uFF5A": { type: "string" },
      "\u{1F600}": { type: "string" },
    },
  },
  derivations: [{ path: "$.total", expr: "qty * price" }],
  constraints: [
    { id: "max-qty", expr: "qty <= 100", message: "qty must not exceed 100", policy: "rollback" },
    { id: "big-order", expr: "$not(total > 500)", message: "large order", policy: "flag" },
  ],
  effects: [
    { id: "notify", executor: "caller", trigger: "qty > 50", emit: "'big'", payload: "{'n': qty}" },
    {
      id: "expire",
      executor: "timer",
      trigger: "status = 'submitted'",
      dedupeKey: "status",
      afterMs: "1",
      response: { set: { "$.status": "'expired'" } },
      statusPath: "$.io.expire",
    },
  ],
};

/** A signing key as an operator sets it (a base64 32-byte seed) and the public key an auditor is given. */
async function signingKeys(): Promise<{ seed: string; publicKey: CryptoKey }> {
  const seed = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
  return { seed, publicKey: await publicKeyOfSeed(seed) };
}

async function send(base: string, method: string, path: string, body?: unknown, type?: string) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { "content-type": type ?? "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function serviceVerify(base: string) {
  return (await send(base, "GET", `/models/${MODEL}/audit/verify`)).body;
}

/** Drives every kind of audited (and non-audited) change through the server. */
async function driveTraffic(base: string): Promise<void> {
  assert.deepEqual((await send(base, "POST", "/models", spec)).status, 201);
  const write = (body: unknown) => send(base, "POST", `/models/${MODEL}/mutations`, body);
  assert.deepEqual((await write({ "$.qty": 2, "$.price": 3 })).status, 200);
  assert.deepEqual((await write({ "$.qty": 200 })).status, 409, "the rollback refusal");
  const flagged = await write({ "$.qty": 60, "$.price": 10 });
  assert.deepEqual(flagged.status, 200);
  assert.deepEqual((await write({ "$['\uFF5A']": "z", "$['\u{1F600}']": "smile" })).status, 200);
  const patch = [{ op: "add", path: "/note", value: 'caf\u00e9 \u2028 "quoted"' }];
  const patched = await send(
    base,
    "POST",
    `/models/${MODEL}/mutations/patch`,
    patch,
    "application/json-patch+json",
  );
  assert.deepEqual(patched.status, 200);
  assert.deepEqual((await write({ "$.status": "submitted" })).status, 200);
  // The timer folds back on its own: wait for the fold-back's record.
  for (let tries = 0;; tries++) {
    const newest = (await send(base, "GET", `/models/${MODEL}/audit?limit=1`)).body[0];
    if (newest.source === "foldback") break;
    assert(tries < 1200, "the timer's fold-back was never audited");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const evolved = await send(base, "POST", `/models/${MODEL}/spec/evolve`, {
    newVersion: "1.1.0",
    upsertDerivations: [{ path: "$.doubled", expr: "total * 2" }],
  });
  assert.deepEqual(evolved.status, 200);
  const snapshot = (await send(base, "POST", `/models/${MODEL}/snapshot`)).body;
  assert.deepEqual((await write({ "$.qty": 1 })).status, 200);
  assert.deepEqual((await send(base, "POST", `/models/${MODEL}/restore`, snapshot)).status, 204);
  assert.deepEqual((await write({ "$.price": 0.1 + 0.2 })).status, 200);
}

function journalOf(dir: string): string {
  return `${dir}/models/${MODEL}/journal.ndjson`;
}

Deno.test("canonicalJson sorts keys by UTF-16 code unit and writes no whitespace", () => {
  assert.deepEqual(
    canonicalJson({ "\uFF5A": 1, "\u{1F600}": 2, b: [1, { d: null, c: "x" }] }),
    '{"b":[1,{"c":"x","d":null}],"\u{1F600}":2,"\uFF5A":1}',
  );
});

Deno.test("an auditor recomputes the served trail: chain, hashes and signatures", async () => {
  const dir = await Deno.makeTempDir();
  const keys = await signingKeys();
  const env = {
    SVC_STORAGE_TYPE: "filesystem",
    SVC_PERSISTENCE_DIR: dir,
    SVC_AUDIT_SIGNING_KEY: keys.seed,
  };
  let server = await spawnServe({ env, cwd: dir });
  let keptHead: ServedAuditRecord;
  try {
    const base = server.url!;
    await driveTraffic(base);
    const overRest = await fetchTrailOverRest(base, MODEL);
    const sources = overRest.map((r) => r.source).reverse();
    assert.deepEqual(
      sources,
      ["client", "client", "client", "patch", "client", "foldback", "client", "client", "client"]
        .slice(0, sources.length),
    );
    assert(overRest.every((r) => typeof r.signature === "string"), "every record is signed");
    assert.deepEqual(await verifyTrail(overRest, keys.publicKey), {
      valid: true,
      recordsChecked: overRest.length,
      firstBrokenSequence: null,
      detail: "ok",
    });
    keptHead = overRest[0];
    const overMcp = await fetchTrailOverMcp(base, MODEL);
    assert.deepEqual(overMcp, overRest, "MCP serves the records REST does");
    const verified = await serviceVerify(base);
    assert.deepEqual([verified.valid, verified.recordsChecked], [true, overRest.length]);
    assert.deepEqual(
      await callMcpTool(base, "verify_audit", { id: MODEL }),
      verified,
      "MCP verifies as REST does",
    );
  } finally {
    await server.stop();
  }

  /** `[valid, firstBrokenSequence]` of the service's verify and of the auditor's. */
  const verdicts = (
    both: { service: { valid: boolean; firstBrokenSequence: number | null }; auditor: AuditorVerdict },
  ) => [
    [both.service.valid, both.service.firstBrokenSequence],
    [both.auditor.valid, both.auditor.firstBrokenSequence],
  ];

  // Tampering, one case at a time on a copy of the journal, the server restarted over it.
  const journal = await Deno.readTextFile(journalOf(dir));
  const lines = journal.trimEnd().split("\n");
  const tampered = async (tamperedLines: string[]) => {
    await Deno.writeTextFile(journalOf(dir), tamperedLines.join("\n") + "\n");
    server = await spawnServe({ env, cwd: dir });
    try {
      // One page: paging by `before` over a reordered store would serve a record twice.
      const trail = await fetchTrailOverRest(server.url!, MODEL, 10000);
      return {
        service: await serviceVerify(server.url!),
        auditor: await verifyTrail(trail, keys.publicKey),
        auditorWithHead: await verifyTrail(trail, keys.publicKey, keptHead),
      };
    } finally {
      await server.stop();
    }
  };

  // An altered record (a trace's result, which the log entry does not repeat).
  const altered = lines.map((line, index) =>
    index === 1 ? line.replace('"result":600', '"result":6000') : line
  );
  assert(altered[1] !== lines[1], "the edit found its target");
  const afterEdit = await tampered(altered);
  assert.deepEqual(verdicts(afterEdit), [[false, 1], [false, 1]]);

  // Two records swapped.
  const swapped = [...lines];
  [swapped[2], swapped[3]] = [swapped[3], swapped[2]];
  const afterSwap = await tampered(swapped);
  assert.deepEqual(verdicts(afterSwap), [[false, 3], [false, 3]]);

  // The newest deleted: documented as not noticed, the trail ending at the last commit left;
  // only a head kept elsewhere tells.
  const afterTruncation = await tampered(lines.slice(0, -1));
  assert.deepEqual(afterTruncation.service, {
    valid: true,
    recordsChecked: keptHead.sequence,
    firstBrokenSequence: null,
    detail: "ok",
  });
  assert.deepEqual(afterTruncation.auditor.recordsChecked, keptHead.sequence);
  assert.deepEqual(afterTruncation.auditorWithHead.valid, false, "a kept head tells");

  // A record deleted with later ones after it: the sequence gap.
  const afterGap = await tampered(lines.filter((_, index) => index !== 2));
  assert.deepEqual(verdicts(afterGap), [[false, 2], [false, 2]]);
  assert.match(afterGap.service.detail, /sequence 2 is missing/);

  // A signature moved onto another record, and the head's signature stripped.
  const signatureOf = (line: string) => /"signature":"([^"]*)"/.exec(line)![1];
  const moved = lines.map((line, index) =>
    index === 1 ? line.replace(signatureOf(line), signatureOf(lines[0])) : line
  );
  const afterMove = await tampered(moved);
  assert.deepEqual(verdicts(afterMove), [[false, 1], [false, 1]]);
  const stripped = lines.map((line, index) =>
    index === lines.length - 1 ? line.replace(`,"signature":"${signatureOf(line)}"`, "") : line
  );
  const afterStrip = await tampered(stripped);
  assert.deepEqual(verdicts(afterStrip), [[false, keptHead.sequence], [false, keptHead.sequence]]);
  assert.match(afterStrip.service.detail, /the chain head is not signed/);

  await Deno.writeTextFile(journalOf(dir), journal);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("an auditor recomputes a Deno KV trail whose records compaction moved, after a restart", async () => {
  const dir = await Deno.makeTempDir();
  const seed = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));
  const keys = {
    "svc.storage.type": "kv",
    "svc.persistence-dir": dir,
    "svc.storage.compaction-threshold": "2",
    "svc.audit.signing-key": seed,
  };
  let server = await startTestServer(keys);
  try {
    assert.equal((await send(server.url, "POST", "/models", spec)).status, 201);
    for (let qty = 0; qty < 5; qty++) {
      const written = await send(server.url, "POST", `/models/${MODEL}/mutations`, {
        "$.qty": qty,
        "$.price": -0,
        "$['\u{1F600}']": `lone \ud800 ${qty}`,
        "$['\uFF5A']": "z",
      });
      assert.equal(written.status, 200, JSON.stringify(written.body));
    }
    assert.equal(
      (await send(server.url, "POST", `/models/${MODEL}/spec/evolve`, { newVersion: "1.1.0" })).status,
      200,
    );
    assert.equal((await send(server.url, "POST", `/models/${MODEL}/mutations`, { "$.qty": 9 })).status, 200);
  } finally {
    await server.close();
  }
  server = await startTestServer(keys);
  try {
    const trail = await fetchTrailOverRest(server.url, MODEL, 2);
    assert.deepEqual(trail.map((record) => record.sequence), [5, 4, 3, 2, 1, 0]);
    assert.deepEqual(await verifyTrail(trail, await publicKeyOfSeed(seed)), await serviceVerify(server.url));
  } finally {
    await server.close();
    await Deno.remove(dir, { recursive: true });
  }
});
