/**
 * JSONata's sequences, as jsonata-js represents them: plain arrays flagged
 * `sequence` (built by a path step), `keepSingleton` (`[]` suffix),
 * `outerWrapper` (an array input) or `cons` (an array constructor). Compiled
 * expressions build exactly these shapes so every rule that looks at the flags
 * (singleton unwrapping, flattening of path results) gives jsonata-js's answer.
 * Ported from jsonata 2.2.2 (`createSequence`, `fn.lookup`, `fn.append`, the
 * result normalisation at the end of `evaluate`).
 *
 * @module
 */
import { bail } from "./context.ts";
import { isFunctionLike } from "./values.ts";

/** A JSONata sequence: an array with its flags. */
export interface Sequence extends Array<unknown> {
  sequence?: boolean;
  keepSingleton?: boolean;
  outerWrapper?: boolean;
  cons?: boolean;
}

/** An empty sequence. */
export function createSequence(): Sequence {
  const sequence: Sequence = [];
  sequence.sequence = true;
  return sequence;
}

/** A sequence of one item (jsonata-js's `createSequence(item)`). */
export function singleton(item: unknown): Sequence {
  const sequence = createSequence();
  sequence.push(item);
  return sequence;
}

/** True for a sequence (an array built by the evaluator, not one of the document). */
export function isSequence(value: unknown): value is Sequence {
  return Array.isArray(value) && (value as Sequence).sequence === true;
}

/**
 * The end of jsonata-js's `evaluate`: an empty sequence is nothing, a
 * singleton is its item unless it must stay an array (`keepArray`).
 */
export function normalize(result: unknown, keepArray: boolean): unknown {
  if (!result || !isSequence(result)) return result;
  if (keepArray) result.keepSingleton = true;
  if (result.length === 0) return undefined;
  if (result.length === 1) return result.keepSingleton ? result : result[0];
  return result;
}

/** `fn.lookup`: a field of an object, or of every object of an array (arrays in the result flattened once). */
export function lookup(input: unknown, key: string): unknown {
  if (Array.isArray(input)) {
    const result = createSequence();
    for (let i = 0; i < input.length; i++) {
      const value = lookup(input[i], key);
      if (value === undefined) continue;
      if (Array.isArray(value)) { for (let j = 0; j < value.length; j++) result.push(value[j]); }
      else result.push(value);
    }
    return result;
  }
  if (input !== null && typeof input === "object" && Object.prototype.hasOwnProperty.call(input, key)) {
    return isFunctionLike(input) ? undefined : (input as Record<string, unknown>)[key];
  }
  return undefined;
}

/**
 * `lookup` of a non-array item, faster: a key that no object inherits (`inherited`
 * false, see {@link isInheritedKey}) is read without the own-property test, since
 * documents and constructed objects are plain.
 */
export function field(item: unknown, key: string, inherited: boolean): unknown {
  if (item === null || typeof item !== "object") return undefined;
  const value = inherited
    ? (Object.prototype.hasOwnProperty.call(item, key) ? (item as Record<string, unknown>)[key] : undefined)
    : (item as Record<string, unknown>)[key];
  return value === undefined || !isFunctionLike(item) ? value : undefined;
}

/** True for a key a plain object inherits (`toString`, `__proto__`…): it needs the own-property test. */
export function isInheritedKey(key: string): boolean {
  return key in Object.prototype;
}

/** `fn.append`: both values as one array (a copy; nothing when both are nothing). */
export function append(first: unknown, second: unknown, maxItems: number): unknown {
  if (first === undefined) return second;
  if (second === undefined) return first;
  const head = Array.isArray(first) ? first : singleton(first);
  const tail = Array.isArray(second) ? second : [second];
  // jsonata-js fails with D2015 past its sequence limit: the interpreter reports that.
  if (head.length + tail.length > maxItems) bail();
  return head.concat(tail);
}
