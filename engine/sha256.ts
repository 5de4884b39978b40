/**
 * SHA-256 (FIPS 180-4) in plain TypeScript, synchronous. The portable
 * platform hashes audit records with it: Web Crypto's `digest` is
 * asynchronous, and for the few hundred bytes of a record the hand-off to its
 * worker thread and back costs several times the hashing itself (about 40 µs
 * of a write; this runs at about 100 MB/s, native code at about 400). Inputs
 * past a few KiB (blobs) still go to Web Crypto (`ports.ts`).
 *
 * @module
 */

/** The first `count` primes. */
function primes(count: number): number[] {
  const found: number[] = [];
  for (let n = 2; found.length < count; n++) if (found.every((p) => n % p)) found.push(n);
  return found;
}

// The constants are computed as FIPS 180-4 defines them rather than listed (0.6 KB of the browser bundle):
// every one lies at least 0.005 of its last bit away from the next, so a root even a thousand ulps off gives
// the same 32 bits; the known-answer tests (sha256_test.ts) check them all. They are computed on the first
// hash, not when the module loads: every start of the CLI loads it (engine/ports.ts) and hashes with
// node:crypto instead, and the computation took about half a millisecond of each start.

/**
 * The first 32 bits of the fractional parts of the cube roots of the first 64 primes (FIPS 180-4 4.2.2),
 * and of the square roots of the first 8 (5.3.3), the initial hash.
 */
let K: Int32Array, INITIAL: Int32Array;

const encoder = new TextEncoder();
/** The message schedule, reused: hashing is synchronous, so one call never overlaps another. */
const W = new Int32Array(64);
let HEX: string[];

/** A string's UTF-8 encoding (bytes as they are). */
export function utf8(data: string | Uint8Array): Uint8Array {
  return typeof data === "string" ? encoder.encode(data) : data;
}

/** SHA-256 of bytes or of a string's UTF-8 encoding, as lowercase hex. */
export function sha256Hex(data: string | Uint8Array): string {
  if (!HEX) {
    const roots = (count: number, root: (p: number) => number) =>
      Int32Array.from(primes(count), (p) => (root(p) % 1) * 2 ** 32);
    K = roots(64, Math.cbrt);
    INITIAL = roots(8, Math.sqrt);
    HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));
  }
  const message = utf8(data);
  const length = message.byteLength;
  const H = INITIAL.slice();
  const whole = length & ~63;
  for (let offset = 0; offset < whole; offset += 64) compress(H, message, offset);
  // The last bytes, a 0x80 byte, zeros, and the bit length at the end of one or two more blocks.
  const tail = new Uint8Array(length - whole + 9 > 64 ? 128 : 64);
  tail.set(message.subarray(whole));
  tail[length - whole] = 0x80;
  const bits = tail.byteLength - 8;
  const high = Math.floor(length / 0x20000000);
  const low = (length << 3) >>> 0;
  for (let i = 0; i < 4; i++) {
    tail[bits + i] = high >>> (24 - 8 * i);
    tail[bits + 4 + i] = low >>> (24 - 8 * i);
  }
  for (let offset = 0; offset < tail.byteLength; offset += 64) compress(H, tail, offset);
  let hex = "";
  for (const word of H) {
    hex += HEX[word >>> 24 & 0xff] + HEX[(word >>> 16) & 0xff] + HEX[(word >>> 8) & 0xff] + HEX[word & 0xff];
  }
  return hex;
}

/** Folds the 64-byte block at `offset` into the state `H`. */
function compress(H: Int32Array, bytes: Uint8Array, offset: number): void {
  for (let t = 0, i = offset; t < 16; t++, i += 4) {
    W[t] = (bytes[i] << 24) | (bytes[i + 1] << 16) | (bytes[i + 2] << 8) | bytes[i + 3];
  }
  for (let t = 16; t < 64; t++) {
    const w15 = W[t - 15], w2 = W[t - 2];
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    W[t] = (W[t - 16] + s0 + W[t - 7] + s1) | 0;
  }
  let a = H[0], b = H[1], c = H[2], d = H[3], e = H[4], f = H[5], g = H[6], h = H[7];
  for (let t = 0; t < 64; t++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[t] + W[t]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  H[0] = (H[0] + a) | 0;
  H[1] = (H[1] + b) | 0;
  H[2] = (H[2] + c) | 0;
  H[3] = (H[3] + d) | 0;
  H[4] = (H[4] + e) | 0;
  H[5] = (H[5] + f) | 0;
  H[6] = (H[6] + g) | 0;
  H[7] = (H[7] + h) | 0;
}
