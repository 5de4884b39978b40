/**
 * The service metrics through the observer hooks: every mutation outcome,
 * dispatched effects, audit records by source, created and registered models,
 * as JSON (with tag filters) and in the Prometheus text format.
 */
import assert from "node:assert/strict";
import { MetricsRegistry } from "../../server/metrics.ts";
import { inProcessServer, orderSpec } from "./helpers.ts";

Deno.test("metrics follow mutations of every outcome, audit sources, effects and models", async () => {
  const server = await inProcessServer();
  try {
    const { app, service } = server;
    const json = async (path: string) => {
      const res = await app.request(path);
      assert.equal(res.status, 200, path);
      return await res.json();
    };
    const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
      const res = await app.request(path, {
        method: "POST",
        body: JSON.stringify(body),
        headers: { "content-type": "application/json", ...headers },
      });
      await res.body?.cancel();
      return res.status;
    };
    assert.equal(await post("/models", orderSpec()), 201);
    assert.equal(await post("/models", orderSpec("second")), 201);
    assert.equal(await post("/models/order/mutations", { "$.qty": 1 }), 200);
    assert.equal(await post("/models/order/mutations", { "$.qty": 60, "$.price": 10 }), 200);
    assert.equal(await post("/models/order/mutations", { "$.qty": 101 }), 409);
    assert.equal(await post("/models/order/mutations", { "$.qty": -1 }), 422);
    assert.equal(await post("/models/order/mutations", { "$.nope[": 1 }), 422, "malformed address");
    assert.equal(
      await post("/models/order/mutations/patch", [{ op: "add", path: "/note", value: "x" }]),
      200,
    );
    await service.foldback("order", { "$.note": "y" });
    assert.equal(await post("/models/missing/mutations", { "$.qty": 1 }), 404);

    const duration = await json("/actuator/metrics/svc.mutation.duration");
    assert.equal(duration.baseUnit, "seconds");
    assert.deepEqual(duration.availableTags, [{
      tag: "outcome",
      values: ["error", "flagged", "rollback", "schema_violation", "success"],
    }]);
    const count = (view: { measurements: { statistic: string; value: number }[] }) =>
      view.measurements.find((m) => m.statistic === "COUNT")!.value;
    assert.equal(count(duration), 7, "unknown models are not timed");
    assert.equal(count(await json("/actuator/metrics/svc.mutation.duration?tag=outcome:success")), 3);
    assert.equal(count(await json("/actuator/metrics/svc.mutation.duration?tag=outcome:flagged")), 1);
    assert.equal(count(await json("/actuator/metrics/svc.mutation.duration?tag=outcome:rollback")), 1);
    assert.equal(
      count(await json("/actuator/metrics/svc.mutation.duration?tag=outcome:schema_violation")),
      1,
    );
    assert.equal(count(await json("/actuator/metrics/svc.mutation.duration?tag=outcome:error")), 1);
    const untagged = await app.request("/actuator/metrics/svc.mutation.duration?tag=outcome");
    assert.equal(untagged.status, 400);
    // Worded as every other query parameter's refusal, a hostile value quoted short.
    assert.equal(
      (await untagged.json()).detail,
      "Invalid query parameter 'tag': expected name:value, got 'outcome'",
    );
    const long = await app.request(`/actuator/metrics/svc.mutation.duration?tag=${"x".repeat(5000)}`);
    assert.match(
      (await long.json()).detail,
      /^Invalid query parameter .tag.: expected name:value, got .x{200}… \(5000 characters\).$/,
    );

    assert.equal(count(await json("/actuator/metrics/svc.effects.dispatched")), 1);
    const audit = await json("/actuator/metrics/svc.audit.records");
    assert.equal(count(audit), 4);
    assert.deepEqual(audit.availableTags, [{ tag: "source", values: ["client", "foldback", "patch"] }]);
    assert.equal(count(await json("/actuator/metrics/svc.audit.records?tag=source:patch")), 1);
    assert.equal(count(await json("/actuator/metrics/svc.models.created")), 2);
    const registered = await json("/actuator/metrics/svc.models.registered");
    assert.deepEqual(registered.measurements, [{ statistic: "VALUE", value: 2 }]);

    const res = await app.request("/models/second", { method: "DELETE" });
    assert.equal(res.status, 204);
    const text = await (await app.request("/actuator/prometheus")).text();
    assert.match(text, /^# TYPE svc_mutation_duration_seconds summary$/m);
    assert.match(text, /^svc_mutation_duration_seconds_count\{outcome="success"\} 3$/m);
    assert.match(text, /^svc_mutation_duration_seconds_sum\{outcome="rollback"\} [0-9.e-]+$/m);
    assert.match(text, /^svc_mutation_duration_seconds_max\{outcome="flagged"\} [0-9.e-]+$/m);
    assert.match(text, /^svc_audit_records_total\{source="foldback"\} 1$/m);
    assert.match(text, /^svc_effects_dispatched_total 1$/m);
    assert.match(text, /^svc_models_created_total 2$/m);
    assert.match(text, /^svc_models_registered 1$/m);
  } finally {
    await server.close();
  }
});

Deno.test("registry: label values are escaped, timers keep count, total and max", () => {
  const registry = new MetricsRegistry();
  registry.declare("t", "timer", "a timer", true);
  const record = registry.timer("t", { k: 'a"b\\c' });
  record(1500);
  record(500);
  assert.match(registry.prometheus(), /^t_seconds_count\{k="a\\"b\\\\c"\} 2$/m);
  assert.deepEqual(registry.view("t")!.measurements, [
    { statistic: "COUNT", value: 2 },
    { statistic: "TOTAL_TIME", value: 2 },
    { statistic: "MAX", value: 1.5 },
  ]);
  assert.equal(registry.view("missing"), null);
});
