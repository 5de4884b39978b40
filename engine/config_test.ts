import assert from "node:assert/strict";
import { DEFAULT_CONFIG, engineConfig, envName, readBool, readInt, readList } from "./config.ts";

const lookup = (values: Record<string, string>) => (key: string) => values[key];

Deno.test("defaults follow SPEC.md Limits", () => {
  const config = engineConfig();
  assert.deepEqual(config, { ...DEFAULT_CONFIG });
  assert.equal(config.maxModels, 1000);
  assert.equal(config.mutationQueueSize, 10);
  assert.equal(config.historyMaxEntries, 50);
  assert.equal(config.maxArrayIndex, 1_000_000);
  assert.equal(config.regexMaxInput, 100_000);
  assert.equal(config.regexTimeoutMs, 1000);
  assert.equal(config.expressionCacheSize, 10_000);
  assert.equal(config.expressionTimeoutMs, 1000);
  assert.equal(config.traceBufferSize, 500);
  assert.equal(config.blobMaxBytes, 52_428_800);
  assert.equal(config.blobMaxTotalBytes, 536_870_912);
  assert.equal(config.effectKindsEnabled, null);
});

Deno.test("svc.* keys override the defaults", () => {
  const config = engineConfig(lookup({
    "svc.max-models": "5",
    "svc.mutation-queue-size": " 2 ",
    "svc.history.max-entries": "0",
    "svc.limits.max-array-index": "100",
    "svc.limits.regex-max-input": "10",
    "svc.limits.expression-cache-size": "3",
    "svc.blob.max-total-bytes": "-1",
    "svc.effects.kinds.enabled": "caller, timer,,",
  }));
  assert.equal(config.maxModels, 5);
  assert.equal(config.mutationQueueSize, 2);
  assert.equal(config.historyMaxEntries, 0);
  assert.equal(config.maxArrayIndex, 100);
  assert.equal(config.regexMaxInput, 10);
  assert.equal(config.expressionCacheSize, 3);
  assert.equal(config.blobMaxTotalBytes, -1);
  assert.deepEqual(config.effectKindsEnabled, ["caller", "timer"]);
});

Deno.test("envName upper-cases and turns dots and dashes into underscores", () => {
  assert.equal(envName("svc.max-models"), "SVC_MAX_MODELS");
  assert.equal(envName("svc.limits.regex-max-input"), "SVC_LIMITS_REGEX_MAX_INPUT");
});

Deno.test("malformed values fail loudly, naming the key and its variable", () => {
  assert.throws(
    () => readInt(lookup({ "svc.max-models": "lots" }), "svc.max-models", 1),
    /Configuration svc\.max-models \(SVC_MAX_MODELS\) must be an integer, got 'lots'/,
  );
  assert.throws(() => readInt(lookup({ k: "1.5" }), "k", 1), /must be an integer/);
  assert.throws(() => readBool(lookup({ k: "yes" }), "k", false), /must be true or false, got 'yes'/);
  assert.equal(readBool(lookup({ k: " TRUE " }), "k", false), true);
  assert.equal(readBool(lookup({ k: "" }), "k", true), true);
  assert.equal(readInt(lookup({ k: "  " }), "k", 7), 7);
  assert.equal(readList(lookup({}), "k"), null);
  assert.equal(readList(lookup({ k: " " }), "k"), null);
});

Deno.test("an integer key takes plain decimal only: hex, exponent and fraction forms are refused", () => {
  for (const raw of ["0x10", "1e3", "12.0", "+5", "0b11", "0o7", "1_000", "Infinity", "12 0"]) {
    assert.throws(
      () => readInt(lookup({ "svc.rate-limit.requests": raw }), "svc.rate-limit.requests", 1),
      {
        message:
          `Configuration svc.rate-limit.requests (SVC_RATE_LIMIT_REQUESTS) must be an integer, got '${raw}'`,
      },
      raw,
    );
  }
  // Surrounding blanks are trimmed as every reader does; a minus sign is the reader's (a limit refuses it).
  assert.equal(readInt(lookup({ k: " 12 " }), "k", 1), 12);
  assert.equal(readInt(lookup({ k: "-1" }), "k", 1), -1);
  assert.equal(readInt(lookup({ k: "007" }), "k", 1), 7);
  assert.throws(
    () => engineConfig(lookup({ "svc.max-models": "1e3" })),
    /svc\.max-models \(SVC_MAX_MODELS\) must be an integer, got '1e3'/,
  );
});
