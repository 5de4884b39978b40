/**
 * The server's platform: the engine's clock, and SHA-256 from `node:crypto`,
 * which hashes the small audit records about seven times faster than the
 * asynchronous Web Crypto digest the portable platform uses (the engine must
 * also run in browsers, the server need not). The server's own hashing (the
 * content checks of stored values) goes through the same hasher.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { type Hasher, type Platform, webPlatform } from "../engine/ports.ts";

/** SHA-256 from `node:crypto`, as lowercase hex. */
export const serverHasher: Hasher = {
  sha256Hex: (data) => Promise.resolve(sha256HexNow(data)),
  sha256HexNow,
};

function sha256HexNow(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** A platform for Deno processes. */
export function serverPlatform(): Platform {
  return { ...webPlatform(), hasher: serverHasher };
}
