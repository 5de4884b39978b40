import assert from "node:assert/strict";
import { parseCoordinate } from "../../engine/composition/coordinate.ts";
import { newNamespaceId, newUserCode, normaliseUserCode, randomSecret, USER_CODE_ALPHABET } from "./codes.ts";

Deno.test("user codes: eight consonants as XXXX-XXXX, every letter of the alphabet used", () => {
  const seen = new Set<string>();
  for (let i = 0; i < 500; i++) {
    const code = newUserCode();
    assert.match(code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    for (const letter of code.replace("-", "")) seen.add(letter);
  }
  assert.equal(seen.size, USER_CODE_ALPHABET.length);
});

Deno.test("typed codes are normalised; anything that cannot be a code is refused without a lookup", () => {
  for (const typed of ["wdjb-mjht", " WDJB MJHT ", "wdjbmjht", "WDJB_MJHT", "wdjb.mjht"]) {
    assert.equal(normaliseUserCode(typed), "WDJB-MJHT", typed);
  }
  for (
    const typed of ["", "WDJB-MJH", "WDJB-MJHTT", "AEIO-UAEI", "WDJB-MJH1", "WDJB-MJHT; DROP", "ＷDJB-MJHT"]
  ) {
    assert.equal(normaliseUserCode(typed), null, typed);
  }
});

Deno.test("secrets are 128 random bits; namespaces are valid id segments", () => {
  const secrets = new Set(Array.from({ length: 100 }, randomSecret));
  assert.equal(secrets.size, 100);
  for (const secret of secrets) assert.match(secret, /^[A-Za-z0-9_-]{22}$/);
  const namespace = newNamespaceId();
  assert.match(namespace, /^pair-[a-z0-9]{16}$/);
  assert.equal(parseCoordinate(`${namespace}/cart`)?.namespace, namespace);
});
