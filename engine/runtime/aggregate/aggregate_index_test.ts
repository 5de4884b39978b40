import assert from "node:assert/strict";
import jsonata from "jsonata";
import { Random } from "../../expr/compiled/test_support.ts";
import { AggregateIndex, type AggregateKind } from "./aggregate_index.ts";

const KINDS: AggregateKind[] = ["sum", "count", "average", "max", "min"];

Deno.test("every aggregate equals JSONata's over the same elements after each update", async () => {
  const random = new Random(5);
  const draw = () => random.chance(0.25) ? undefined : random.pick([0.1, 0.2, 19.99, 3, -0, 2.5, -7, 1e-9]);
  for (const kind of KINDS) {
    const expression = jsonata(`$${kind}(items.v)`);
    for (const length of [0, 1, 3, 50]) {
      const values = Array.from({ length }, draw);
      const index = new AggregateIndex(kind, values);
      for (let step = 0; step < (length ? 60 : 1); step++) {
        const items = values.map((v) => v === undefined ? {} : { v });
        const want = await expression.evaluate({ items });
        assert.ok(Object.is(index.value, want), `${kind}/${length} step ${step}: ${index.value} ≠ ${want}`);
        if (!length) break;
        const position = random.int(length);
        values[position] = draw();
        index.set(position, values[position]);
      }
    }
  }
});
