import assert from "node:assert/strict";
import { webPlatform } from "../../engine/ports.ts";
import { serverPlatform } from "../../server/platform.ts";

Deno.test("the server hasher agrees with the portable Web Crypto hasher", async () => {
  const portable = webPlatform().hasher;
  const server = serverPlatform().hasher;
  for (const input of ["", "abc", "ünïcode ✓", new Uint8Array([0, 255, 7]), "x".repeat(10_000)]) {
    assert.equal(await server.sha256Hex(input), await portable.sha256Hex(input));
    assert.equal(server.sha256HexNow!(input), await portable.sha256Hex(input), "at once, any size");
  }
  assert.equal(
    await server.sha256Hex("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});
