/**
 * Operator-installed effect kinds (`svc.effects.plugins`): each entry names a
 * module (a path or a URL) exporting, as `default` or `plugin`,
 * `{kind, validate?(effect), execute(request, context)}`. `validate` adds its
 * messages to a spec's findings at the effect; `execute` gets the fired
 * effect and the merged document it fired in, with a context (`signal`,
 * `timeoutMs`, the job's `idempotencyKey`), and answers
 * `{response?, status?}` (`$response`, `$status` of the fold-back) or throws
 * (a failure, retried under the effect's policy). The egress guard does not
 * extend to plugins (SPEC.md "Authentication" 10).
 *
 * @module
 */
import { type EffectExecutor, idempotencyKeyOf } from "../../engine/effects/executor.ts";
import type { Json, JsonObject } from "../../engine/json/value.ts";

/** What a plugin's `execute` receives. */
export interface PluginRequest {
  modelId: string;
  effectId: string;
  /** The effect's `dedupeKey` value when it fired. */
  key: Json;
  /** The effect as the spec declares it. */
  definition: JsonObject;
  /** The merged document the effect fired in. */
  document: Json;
}

/** What a plugin's `execute` runs with. */
export interface PluginContext {
  /** Aborted at the effect's `policy.timeoutMs`, or when the job is cancelled. */
  signal: AbortSignal;
  timeoutMs: number;
  /**
   * The same at every attempt of one firing (after a restart too), a new one when the effect fires again:
   * what the `server` kind sends as `Idempotency-Key`, for a plugin to hand to a service that dedupes by it.
   */
  idempotencyKey: string;
}

/** An effect kind module. */
export interface EffectPlugin {
  kind: string;
  validate?(effect: JsonObject): string[] | void;
  execute(
    request: PluginRequest,
    context: PluginContext,
  ): Promise<{ response?: Json; status?: number } | void>;
}

function isPlugin(value: unknown): value is EffectPlugin {
  const p = value as EffectPlugin;
  return p !== null && typeof p === "object" && typeof p.kind === "string" && p.kind.trim() !== "" &&
    typeof p.execute === "function" && (p.validate === undefined || typeof p.validate === "function");
}

/** A module specifier as an import URL (paths relative to the working directory). */
function moduleUrl(specifier: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier)) return specifier;
  const path = specifier.startsWith("/") ? specifier : `${Deno.cwd()}/${specifier}`;
  return new URL(`file://${path}`).href;
}

/** The executor of a plugin. */
export function pluginExecutor(plugin: EffectPlugin): EffectExecutor {
  return {
    kind: plugin.kind,
    validate: plugin.validate ? (effect) => plugin.validate!(effect) ?? [] : undefined,
    async execute(job, context) {
      if (job.work.type !== "plugin") return { ok: false, error: "not a plugin request", retryable: false };
      try {
        const answer = await plugin.execute({
          modelId: job.modelId,
          effectId: job.effectId,
          key: job.key,
          definition: job.work.definition as JsonObject,
          document: job.work.document,
        }, { ...context, idempotencyKey: idempotencyKeyOf(job) });
        return { ok: true, response: answer?.response ?? null, status: answer?.status ?? null };
      } catch (err) {
        return { ok: false, error: `${plugin.kind}: ${(err as Error).message}`, retryable: true };
      }
    },
  };
}

/** Loads the plugins named in `svc.effects.plugins`; a module that is not one aborts startup. */
export async function loadPlugins(specifiers: readonly string[]): Promise<EffectExecutor[]> {
  const executors: EffectExecutor[] = [];
  for (const specifier of specifiers) {
    let module: Record<string, unknown>;
    try {
      module = await import(moduleUrl(specifier));
    } catch (err) {
      throw new Error(`svc.effects.plugins: cannot load '${specifier}': ${(err as Error).message}`);
    }
    const plugin = module.default ?? module.plugin;
    if (!isPlugin(plugin)) {
      throw new Error(
        `svc.effects.plugins: '${specifier}' does not export {kind, execute(request, context)} as default or plugin`,
      );
    }
    executors.push(pluginExecutor(plugin));
  }
  return executors;
}
