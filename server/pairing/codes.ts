/**
 * The random values of a pairing: 128-bit secrets (pair codes, device
 * secrets, session ids and secrets) as base64url, the user code a person
 * reads and types (RFC 8628 6.1: eight letters from twenty consonants, shown
 * `XXXX-XXXX`: no vowels, so no words; no digits to confuse with letters),
 * and the namespace of a session.
 *
 * @module
 */

/** The user code's alphabet (RFC 8628 6.1). */
export const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
/** Letters in a user code: 20^8, about 34.5 bits; guessing is bounded by the rate limit. */
export const USER_CODE_LENGTH = 8;

/** A random 128-bit value as unpadded base64url (22 characters). */
export function randomSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** `count` characters of `alphabet`, uniformly (bytes that would bias the choice are drawn again). */
function randomChars(alphabet: string, count: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < count) {
    for (const byte of crypto.getRandomValues(new Uint8Array(count * 2))) {
      if (byte < limit && out.length < count) out += alphabet[byte % alphabet.length];
    }
  }
  return out;
}

/** A fresh user code, `XXXX-XXXX`. */
export function newUserCode(): string {
  const code = randomChars(USER_CODE_ALPHABET, USER_CODE_LENGTH);
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * A typed user code in its canonical form: letters upper-cased, separators and
 * spaces dropped; `null` when what remains is not a code (a wrong length,
 * letters outside the alphabet), so it is refused without a lookup.
 */
export function normaliseUserCode(typed: string): string | null {
  const letters = typed.toUpperCase().replace(/[\s\-_.]/g, "");
  if (letters.length !== USER_CODE_LENGTH) return null;
  for (const letter of letters) if (!USER_CODE_ALPHABET.includes(letter)) return null;
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

/** A session's namespace: a valid id segment, `pair-` and 16 lowercase letters and digits (80 bits). */
export function newNamespaceId(): string {
  return `pair-${randomChars("abcdefghijklmnopqrstuvwxyz0123456789", 16)}`;
}
