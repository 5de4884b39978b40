/**
 * Base64 for binary data on text surfaces (console, MCP).
 *
 * @module
 */
import { badRequest } from "../errors.ts";

/** Encodes bytes as standard base64. */
export function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return btoa(binary);
}

/** Decodes standard base64 (whitespace tolerated); a 400 error when malformed. */
export function decodeBase64(text: string, field = "data"): Uint8Array {
  const clean = text.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) {
    throw badRequest(`'${field}' is not valid base64`);
  }
  const binary = atob(clean);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
