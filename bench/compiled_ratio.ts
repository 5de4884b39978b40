/**
 * Interpreter against compiled closures on the compiled subset: each
 * expression evaluated through the engine's `ExpressionCompiler` as the
 * runtime calls it (`evaluateNow`: a compiled closure's answer at once, an
 * interpreted one as a promise; result converted to plain JSON) with compiled
 * closures off (jsonata-js behind the guard) and on, in the same run.
 *
 * @module
 */
import { DEFAULT_CONFIG } from "../engine/mod.ts";
import { ExpressionCompiler } from "../engine/expr/compiler.ts";
import { measure } from "./measure.ts";

/** One expression's figures, in microseconds per evaluation. */
export interface RatioRow {
  expression: string;
  interpretedUs: number;
  compiledUs: number;
}

const line = (i: number) => ({
  sku: `sku-${i}`,
  price: 1 + (i % 100) * 0.37,
  qty: 1 + (i % 5),
  lineTotal: (1 + (i % 100) * 0.37) * (1 + (i % 5)),
});

/** An order document, and the bindings of a per-line expression. */
function documentOf(count: number) {
  const items = Array.from({ length: count }, (_, i) => line(i));
  const doc = { customer: { name: "Ada", tier: "gold" }, discount: 0.05, items, subtotal: 1234.5 };
  return { doc, bindings: { const: { taxRate: 0.2, currency: "EUR" }, parent: items[3] } };
}

/** Expressions of the subset, as models write them. */
const EXPRESSIONS: [string, number][] = [
  ["$parent.price * $parent.qty", 100],
  ["$round($parent.price * $parent.qty * (1 + $const.taxRate), 2)", 100],
  ["subtotal > 1000 and customer.tier = 'gold' ? subtotal * (1 - discount) : subtotal", 100],
  ["customer.name & ' (' & $string($count(items)) & ' items, ' & $const.currency & ')'", 100],
  ["{'total': subtotal, 'lines': $count(items), 'largest': $max(items.lineTotal)}", 100],
  ["$exists(customer.email) or $number('12.5') > $abs(-3)", 100],
  ["items[qty > 3].sku", 100],
  ["$sum(items.(price * qty))", 100],
  ["$sum(items.lineTotal)", 100],
  ["$sum(items.lineTotal)", 10_000],
];

/** Measures every expression both ways. */
export async function compiledRatios(): Promise<RatioRow[]> {
  const options = {
    cacheSize: 100,
    timeoutMs: DEFAULT_CONFIG.expressionTimeoutMs,
    maxDepth: DEFAULT_CONFIG.expressionMaxDepth,
  };
  const interpreter = new ExpressionCompiler({ ...options, compiled: false });
  const compiler = new ExpressionCompiler(options);
  const rows: RatioRow[] = [];
  for (const [source, count] of EXPRESSIONS) {
    const { doc, bindings } = documentOf(count);
    const slow = interpreter.compile(source);
    const fast = compiler.compile(source);
    const times = await measure({
      interpreted: () => slow.evaluateNow(doc, bindings),
      compiled: () => fast.evaluateNow(doc, bindings),
    }, { budgetMs: 600, minSamples: 5 });
    rows.push({
      expression: count > 100 ? `${source} (N = ${count.toLocaleString("en")})` : source,
      interpretedUs: times.interpreted.medianUs,
      compiledUs: times.compiled.medianUs,
    });
  }
  return rows;
}
