/**
 * The operations' schemas are declared lazily (built on first use, so a CLI
 * start pays only for the operations it runs), and the generated documents
 * do not depend on which schema was built first.
 */
import assert from "node:assert/strict";
import { z } from "zod";
import { inputMembers } from "./input.ts";
import { component, componentOf, componentSchemas, lazySchema, publishedAs } from "./json_schema.ts";
import { apiOperation, localOperation } from "./operation.ts";

/** A schema factory that counts its builds. */
function counted<T extends z.ZodType>(build: () => T): { build: () => T; builds: () => number } {
  let builds = 0;
  return {
    build: () => {
      builds++;
      return build();
    },
    builds: () => builds,
  };
}

Deno.test("a lazy schema is built on its first use, once", () => {
  const shape = counted(() => z.string());
  const schema = lazySchema(shape.build);
  assert.equal(shape.builds(), 0);
  assert.equal(schema(), schema());
  assert.equal(shape.builds(), 1);
});

Deno.test("an operation's input and output are built on their first read, once", () => {
  const input = counted(() => z.object({ id: z.string() }));
  const output = counted(() => z.array(z.string()));
  const api = apiOperation({
    name: "lazyApi",
    summary: "test",
    input: input.build,
    output: output.build,
    run: () => Promise.resolve([]),
    rest: { method: "get", path: "/lazy", tag: "test", errors: {} },
  });
  const local = localOperation({
    name: "lazyLocal",
    summary: "test",
    input: input.build,
    run: () => Promise.resolve(null),
  });
  assert.equal(input.builds() + output.builds(), 0);
  assert.equal(api.input, api.input);
  assert.deepEqual(inputMembers(api), ["id"]);
  assert.equal(api.output, api.output);
  assert.equal(local.output, undefined);
  assert.ok(local.input);
  assert.deepEqual([input.builds(), output.builds()], [2, 1]);
});

Deno.test("the components are listed in declaration order whichever is built first, each built by the listing", () => {
  const first = counted(() => z.looseObject({ a: z.string() }));
  const FIRST = component("LazyTestFirst", first.build);
  const SECOND = component("LazyTestSecond", () => z.looseObject({ b: z.string() }));
  const THIRD = component("LazyTestThird", () => z.looseObject({ first: FIRST() }));
  const PUBLISHED = publishedAs(() => z.unknown(), { type: "object" }, "LazyTestPublished");
  assert.equal(componentOf(SECOND()), "LazyTestSecond");
  assert.equal(componentOf(PUBLISHED()), "LazyTestPublished");
  assert.equal(first.builds(), 0);
  const schemas = componentSchemas();
  assert.deepEqual(Object.keys(schemas).filter((id) => id.startsWith("LazyTest")), [
    "LazyTestPublished",
    "LazyTestFirst",
    "LazyTestSecond",
    "LazyTestThird",
  ]);
  assert.deepEqual(schemas.LazyTestThird.properties, {
    first: { $ref: "#/components/schemas/LazyTestFirst" },
  });
  assert.equal(componentOf(THIRD()), "LazyTestThird");
  assert.equal(first.builds(), 1);
});
