/**
 * The service metrics of SPEC.md "Limits" (metrics list), fed by the
 * {@link ServiceObserver} hooks and exposed as Prometheus text and as
 * Spring-Actuator-style JSON (`/actuator/metrics/{name}`).
 *
 * @module
 */
import type { MutationOutcome, ServiceObserver } from "../engine/service/service.ts";

/** A tag set, `{outcome: "success"}`. */
export type Tags = Readonly<Record<string, string>>;

/** One statistic of a metric (`COUNT`, `TOTAL_TIME`, `MAX`, `VALUE`). */
export interface Measurement {
  statistic: "COUNT" | "TOTAL_TIME" | "MAX" | "VALUE";
  value: number;
}

/** The JSON form of one metric. */
export interface MetricView {
  name: string;
  description: string;
  baseUnit: string | null;
  measurements: Measurement[];
  availableTags: { tag: string; values: string[] }[];
}

type Kind = "timer" | "counter" | "gauge";

interface Series {
  tags: Tags;
  count: number;
  /** Counter total, or timer total seconds. */
  total: number;
  /** Timer max seconds. */
  max: number;
}

interface Meter {
  name: string;
  kind: Kind;
  description: string;
  series: Map<string, Series>;
  /** Gauges read their value on demand. */
  read?: () => number;
}

const seriesKey = (tags: Tags) => Object.keys(tags).sort().map((k) => `${k}=${tags[k]}`).join(",");

/** A small registry of timers, counters and gauges. */
export class MetricsRegistry {
  readonly #meters = new Map<string, Meter>();

  #meter(name: string, kind: Kind, description: string): Meter {
    let meter = this.#meters.get(name);
    if (!meter) this.#meters.set(name, meter = { name, kind, description, series: new Map() });
    return meter;
  }

  #series(meter: Meter, tags: Tags): Series {
    const key = seriesKey(tags);
    let series = meter.series.get(key);
    if (!series) meter.series.set(key, series = { tags: { ...tags }, count: 0, total: 0, max: 0 });
    return series;
  }

  /**
   * Declares a metric so it is listed (and an untagged one reads 0) before its
   * first observation.
   */
  declare(name: string, kind: Kind, description: string, tagged: boolean): void {
    const meter = this.#meter(name, kind, description);
    if (!tagged) this.#series(meter, {});
  }

  /** A recorder of timed events (milliseconds) for one tag set; bind once, call per event. */
  timer(name: string, tags: Tags): (milliseconds: number) => void {
    const series = this.#series(this.#meter(name, "timer", ""), tags);
    return (milliseconds) => {
      const seconds = milliseconds / 1000;
      series.count++;
      series.total += seconds;
      if (seconds > series.max) series.max = seconds;
    };
  }

  /** An incrementer of a counter for one tag set; bind once, call per event. */
  counter(name: string, tags: Tags = {}): (amount?: number) => void {
    const series = this.#series(this.#meter(name, "counter", ""), tags);
    return (amount = 1) => {
      series.total += amount;
    };
  }

  /** Registers a gauge read at exposition time. */
  gauge(name: string, description: string, read: () => number): void {
    this.#meter(name, "gauge", description).read = read;
  }

  /** Metric names, alphabetical. */
  names(): string[] {
    return [...this.#meters.keys()].sort();
  }

  /**
   * One metric as JSON, restricted to series matching every `filter` tag;
   * `null` when the metric is unknown.
   */
  view(name: string, filter: Tags = {}): MetricView | null {
    const meter = this.#meters.get(name);
    if (!meter) return null;
    const all = [...meter.series.values()];
    const matching = all.filter((s) => Object.entries(filter).every(([k, v]) => s.tags[k] === v));
    const tagValues = new Map<string, Set<string>>();
    for (const series of matching) {
      for (const [tag, value] of Object.entries(series.tags)) {
        if (tag in filter) continue;
        if (!tagValues.has(tag)) tagValues.set(tag, new Set());
        tagValues.get(tag)!.add(value);
      }
    }
    const sum = (pick: (s: Series) => number) => matching.reduce((acc, s) => acc + pick(s), 0);
    const measurements: Measurement[] = meter.kind === "timer"
      ? [
        { statistic: "COUNT", value: sum((s) => s.count) },
        { statistic: "TOTAL_TIME", value: sum((s) => s.total) },
        { statistic: "MAX", value: matching.reduce((acc, s) => Math.max(acc, s.max), 0) },
      ]
      : meter.kind === "counter"
      ? [{ statistic: "COUNT", value: sum((s) => s.total) }]
      : [{ statistic: "VALUE", value: meter.read?.() ?? 0 }];
    return {
      name,
      description: meter.description,
      baseUnit: meter.kind === "timer" ? "seconds" : null,
      measurements,
      availableTags: [...tagValues].sort(([a], [b]) => a.localeCompare(b)).map(([tag, values]) => ({
        tag,
        values: [...values].sort(),
      })),
    };
  }

  /** Every metric in the Prometheus text exposition format (version 0.0.4). */
  prometheus(): string {
    const lines: string[] = [];
    for (const name of this.names()) {
      const meter = this.#meters.get(name)!;
      const base = name.replace(/[^a-zA-Z0-9_]/g, "_");
      const help = (metric: string, type: string) => {
        lines.push(`# HELP ${metric} ${escapeHelp(meter.description)}`, `# TYPE ${metric} ${type}`);
      };
      if (meter.kind === "gauge") {
        help(base, "gauge");
        lines.push(`${base} ${formatNumber(meter.read?.() ?? 0)}`);
      } else if (meter.kind === "counter") {
        help(`${base}_total`, "counter");
        for (const s of meter.series.values()) {
          lines.push(`${base}_total${labels(s.tags)} ${formatNumber(s.total)}`);
        }
      } else {
        help(`${base}_seconds`, "summary");
        for (const s of meter.series.values()) {
          lines.push(`${base}_seconds_count${labels(s.tags)} ${s.count}`);
          lines.push(`${base}_seconds_sum${labels(s.tags)} ${formatNumber(s.total)}`);
        }
        help(`${base}_seconds_max`, "gauge");
        for (const s of meter.series.values()) {
          lines.push(`${base}_seconds_max${labels(s.tags)} ${formatNumber(s.max)}`);
        }
      }
    }
    return lines.join("\n") + "\n";
  }
}

function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function labels(tags: Tags): string {
  const keys = Object.keys(tags).sort();
  if (!keys.length) return "";
  const escape = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
  return `{${keys.map((k) => `${k}="${escape(tags[k])}"`).join(",")}}`;
}

function formatNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : value > 0 ? "+Inf" : value < 0 ? "-Inf" : "NaN";
}

/** Metric names of SPEC.md. */
export const METRIC = Object.freeze({
  mutationDuration: "svc.mutation.duration",
  effectsDispatched: "svc.effects.dispatched",
  effectDuration: "svc.effect.duration",
  auditRecords: "svc.audit.records",
  modelsCreated: "svc.models.created",
  modelsRegistered: "svc.models.registered",
  /** Not SPEC.md's: 1 while the disk refuses writes (README "A full disk"). */
  storageFull: "svc.storage.full",
});

/** The service's metrics over a registry. */
export class ServiceMetrics {
  readonly registry = new MetricsRegistry();
  #registeredModels: () => number = () => 0;

  constructor() {
    const r = this.registry;
    r.declare(METRIC.mutationDuration, "timer", "Mutation cycles by outcome", true);
    r.declare(METRIC.effectsDispatched, "counter", "Effects fired by committed cycles, every kind", false);
    r.declare(METRIC.effectDuration, "timer", "Effect executor attempts by kind and outcome", true);
    r.declare(METRIC.auditRecords, "counter", "Audit records appended, by source", true);
    r.declare(METRIC.modelsCreated, "counter", "Models created", false);
    r.gauge(METRIC.modelsRegistered, "Models in the registry", () => this.#registeredModels());
  }

  /** Binds the storage-full gauge (1 while writes are refused for a full disk, else 0). */
  watchStorage(full: () => boolean): void {
    this.registry.gauge(
      METRIC.storageFull,
      "1 while the disk is full and writes are refused",
      () => full() ? 1 : 0,
    );
  }

  /** Binds the registered-models gauge to the service once it is open. */
  countModels(read: () => number): void {
    this.#registeredModels = read;
  }

  /** The observer hooks the service calls (recorders are bound once per tag value). */
  observer(): Required<
    Pick<
      ServiceObserver,
      "mutationFinished" | "effectsDispatched" | "effectAttempted" | "auditRecorded" | "modelCreated"
    >
  > {
    const r = this.registry;
    const byTag = <T>(bind: (value: string) => T) => {
      const bound = new Map<string, T>();
      return (value: string) => {
        let recorder = bound.get(value);
        if (!recorder) bound.set(value, recorder = bind(value));
        return recorder;
      };
    };
    const duration = byTag((outcome) => r.timer(METRIC.mutationDuration, { outcome }));
    const audit = byTag((source) => r.counter(METRIC.auditRecords, { source }));
    const effects = r.counter(METRIC.effectsDispatched);
    const attempts = byTag((key) => {
      const [kind, outcome] = key.split("\u0000");
      return r.timer(METRIC.effectDuration, { kind, outcome });
    });
    const created = r.counter(METRIC.modelsCreated);
    return {
      mutationFinished: (_id, outcome: MutationOutcome, ms) => duration(outcome)(ms),
      effectsDispatched: (_id, count) => effects(count),
      effectAttempted: (kind, outcome, ms) => attempts(`${kind}\u0000${outcome}`)(ms),
      auditRecorded: (_id, source) => audit(source)(),
      modelCreated: () => created(),
    };
  }
}
