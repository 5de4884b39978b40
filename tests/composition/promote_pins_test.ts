/**
 * Promote checks the library versions a spec pins before publishing it: a
 * repository's create takes a pinned layer only from the model it names at
 * its digest, so a hub that lacks that version refused the publication with a
 * reason of its own. The check names the library and its version instead,
 * and the hub is not asked.
 */
import assert from "node:assert/strict";
import { ModelService } from "../../engine/mod.ts";
import { rejectsWith } from "../../engine/_test_utils.ts";
import { publicationRefused, type Repository } from "../../engine/composition/repository.ts";

/** Another service as a `web` repository: its models are looked up and published in process. */
function hubOf(hub: ModelService, published: string[], id = "hub"): Repository {
  return {
    id,
    repoClass: "web",
    fetch: (identity) => hub.getSpec(identity).catch(() => null),
    async publish(spec) {
      published.push(spec.id);
      await hub.createModel(spec).catch((err) => {
        throw publicationRefused(id, err);
      });
    },
  };
}

Deno.test("promote refuses (409) a spec pinning a library version no web repository holds, naming it", async () => {
  const hub = await ModelService.open();
  const published: string[] = [];
  const service = await ModelService.open({ repositories: [hubOf(hub, published)] });
  const schema = { type: "object" };
  try {
    await service.createModel({
      id: "lib/base",
      version: "1.0.0",
      schema,
      library: '( $one := 1; ["one"] )',
    });
    await service.createModel({
      id: "app/a",
      schema,
      library: { extends: "lib/base", define: '( $two := $one * 2; ["two"] )' },
    });
    const missing = await rejectsWith(() => service.promote("app/a", "hub"), "conflict");
    assert.match(
      missing.message,
      /^Promotion of 'app\/a' is not closed in the web repositories: library 'lib\/base@1\.0\.0': 'lib\/base@sha256:[0-9a-f]{64}' is not found in any repository \(hub\)$/,
    );
    assert.deepEqual(published, [], "the hub was not asked");

    // Once the hub holds that version, the pin is closed.
    await service.promote("lib/base", "hub");
    assert.deepEqual(await service.promote("app/a", "hub"), { id: "app/a", promotedTo: "hub" });
    assert.deepEqual((await hub.getLibrary("app/a")).layers.map((l) => l.origin), [
      "lib/base@1.0.0",
      "local",
    ]);

    // A model pinned to a newer version than the hub's is refused, the hub's digest named.
    await service.evolveSpec("lib/base", { newVersion: "1.1.0", newLibrary: '( $one := 10; ["one"] )' });
    await service.createModel({
      id: "app/b",
      schema,
      library: { extends: "lib/base", define: '( $two := $one * 2; ["two"] )' },
    });
    const newer = await rejectsWith(() => service.promote("app/b", "hub"), "conflict");
    assert.match(
      newer.message,
      /library 'lib\/base@1\.1\.0': 'lib\/base@sha256:[0-9a-f]{64}': the digest does not match \(hub holds lib\/base with sha256:[0-9a-f]{64}\)$/,
    );
    assert.deepEqual(published, ["lib/base", "app/a"]);
  } finally {
    await service.close();
    await hub.close();
  }
});

Deno.test("a pin held only by another web repository passes the check; a target without it refuses the model", async () => {
  // The check sees every web repository, not the target's own chain (README "Promote").
  const hub = await ModelService.open();
  const other = await ModelService.open();
  const published: string[] = [];
  const service = await ModelService.open({
    repositories: [hubOf(hub, published), hubOf(other, published, "other")],
  });
  const schema = { type: "object" };
  try {
    await service.createModel({ id: "lib/base", schema, library: '( $one := 1; ["one"] )' });
    await service.createModel({
      id: "app/a",
      schema,
      library: { extends: "lib/base", define: '( $two := $one * 2; ["two"] )' },
    });
    await service.promote("lib/base", "other");
    const refused = await rejectsWith(() => service.promote("app/a", "hub"), "conflict");
    assert.match(
      refused.message,
      /^Repository 'hub' refused the model: Spec validation failed: library\.layers\[0\]: UnresolvedReference: 'lib\/base@sha256:[0-9a-f]{64}' is not found in any repository \(local\)$/,
    );
    assert.deepEqual(published, ["lib/base", "app/a"], "the hub was asked");
  } finally {
    await service.close();
    await other.close();
    await hub.close();
  }
});
