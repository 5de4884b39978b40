import assert from "node:assert/strict";
import { WEB_HASHER } from "./ports.ts";
import { sha256Hex } from "./sha256.ts";

async function webCrypto(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as BufferSource);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("the FIPS 180-4 examples", () => {
  assert.equal(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert.equal(
    sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
});

Deno.test("equals Web Crypto at every padding boundary, for bytes and UTF-8 text", async () => {
  for (const length of [1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 1000, 70_000]) {
    const bytes = Uint8Array.from({ length }, (_, i) => (i * 31 + 7) & 0xff);
    assert.equal(sha256Hex(bytes), await webCrypto(bytes), `${length} bytes`);
    const text = "é€𝄞a".repeat(length >> 2);
    assert.equal(sha256Hex(text), await webCrypto(new TextEncoder().encode(text)), `${length} characters`);
  }
});

Deno.test("the portable hasher gives the same digests below and above its synchronous size", async () => {
  for (const length of [0, 100, 4096, 4097, 200_000]) {
    const bytes = Uint8Array.from({ length }, (_, i) => i & 0xff);
    assert.equal(await WEB_HASHER.sha256Hex(bytes), await webCrypto(bytes), `${length} bytes`);
  }
  assert.equal(await WEB_HASHER.sha256Hex("abc"), sha256Hex("abc"));
});

Deno.test("the portable hasher answers at once up to its synchronous size, the same digest", async () => {
  for (const length of [0, 100, 4096]) {
    const bytes = Uint8Array.from({ length }, (_, i) => i & 0xff);
    assert.equal(WEB_HASHER.sha256HexNow!(bytes), await webCrypto(bytes), `${length} bytes`);
  }
  assert.equal(WEB_HASHER.sha256HexNow!("é".repeat(2048)), sha256Hex("é".repeat(2048)), "4096 bytes of text");
  assert.equal(
    WEB_HASHER.sha256HexNow!(new Uint8Array(4097)),
    undefined,
    "past it: only the promise answers",
  );
  assert.equal(WEB_HASHER.sha256HexNow!("é".repeat(2049)), undefined, "4098 bytes of text");
});
