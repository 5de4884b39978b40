/**
 * The UTF-8 size of text without encoding it: what the wire and the stores
 * count (a string's `length` counts UTF-16 units, a third of the bytes of
 * most non-Latin text).
 *
 * @module
 */

/** UTF-8 length of a string, counted without encoding it (sizing runs for every key of every commit and every frame sent). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3; // the rest of the BMP; a lone surrogate becomes U+FFFD
  }
  return bytes;
}
