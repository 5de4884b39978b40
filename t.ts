import { ExpressionCompiler } from "./engine/expr/compiler.ts";
import { compileSpec } from "./engine/spec/compile.ts";
import { DEFAULT_CONFIG } from "./engine/config.ts";
import { ModelRuntime } from "./engine/runtime/runtime.ts";
const config = { ...DEFAULT_CONFIG };
const compiler = new ExpressionCompiler({ cacheSize: 100, timeoutMs: 1000, maxDepth: 500 });
for (const f of Deno.readDirSync("../shared/conformance/examples")) {
  const spec = JSON.parse(Deno.readTextFileSync("../shared/conformance/examples/" + f.name));
  const r = compileSpec(spec, { compiler, config, now: Date.now });
  if (!r.model) { console.log(f.name, r.errors); continue; }
  console.log(f.name, "warnings", r.warnings.length, "levels", JSON.stringify(r.model.graph.levels).slice(0, 200));
  for (const t of spec.tests) {
    const { runtime } = await ModelRuntime.create(r.model, { config, clock: { now: Date.now } });
    try {
      const out = await runtime.mutate(t.given);
      const state = await runtime.readState();
      const bad = Object.entries(t.expect).filter(([k, v]) => { const got = eval("state" + k.slice(1)); return JSON.stringify(got) !== JSON.stringify(v) && !(typeof v === "number" && Math.abs(got - v) < 1e-9); });
      console.log("  ", bad.length ? "FAIL " + JSON.stringify(bad) + JSON.stringify(state).slice(0, 300) : "ok", out?.result.derivedUpdated.length);
    } catch (e) { console.log("  ERR", (e as Error).message); }
  }
}
