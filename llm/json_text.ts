/**
 * Reading a JSON object out of a model's answer: markdown fences and prose
 * around it are tolerated; an answer cut at the token budget (the provider
 * says so, or the braces never close) is told apart from one that is simply
 * not JSON, since the repair loop answers the two differently.
 *
 * @module
 */
import type { Json } from "../engine/json/value.ts";
import type { LlmFinishReason } from "../engine/llm.ts";

/** A parsed answer, or why it is not one. */
export type ParsedAnswer =
  | { ok: true; value: Json }
  | { ok: false; truncated: boolean; message: string };

/** The end (exclusive) of the balanced object starting at `start`, or -1 when it never closes. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** Why a value that parsed is not the object asked for: it is JSON, so it is not called invalid. */
function notAnObject(value: Json): string {
  const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
  return `Response was valid JSON but ${kind}, not a JSON object`;
}

/** `text` (its markdown fence dropped) parsed whole, or undefined when it is not JSON. */
function parseWhole(text: string): Json | undefined {
  try {
    return JSON.parse(text.trim().replace(/^```\w*|```$/g, "")) as Json;
  } catch {
    return undefined;
  }
}

const NOT_JSON = "Response was not valid JSON: ";

/**
 * Where the answer's JSON starts: its first `{`, or the `[` of an array holding
 * it (an array answer is refused as one, not taken as its first element): one
 * that parses, or one cut off right before its first object. Other brackets
 * before that `{` are prose (`[1]`, `[draft]`).
 */
function valueStart(text: string): number {
  const brace = text.indexOf("{");
  if (brace < 0) return -1;
  for (let i = text.indexOf("["); i >= 0 && i < brace; i = text.indexOf("[", i + 1)) {
    const end = objectEnd(text, i);
    const array = end < 0
      ? /^[\s[]*$/.test(text.slice(i + 1, brace))
      : end > brace && parseWhole(text.slice(i, end)) !== undefined;
    if (array) return i;
  }
  return brace;
}

/** The JSON object in `text`; a failure's message is whole (`Response was …`). */
export function parseAnswer(text: string, finishReason: LlmFinishReason = "stop"): ParsedAnswer {
  const start = valueStart(text);
  if (start < 0) {
    const whole = parseWhole(text);
    if (whole !== undefined) return { ok: false, truncated: false, message: notAnObject(whole) };
    return finishReason === "length"
      ? { ok: false, truncated: true, message: `${NOT_JSON}the answer was cut off at the token limit` }
      : { ok: false, truncated: false, message: `${NOT_JSON}no JSON object found in the answer` };
  }
  const end = objectEnd(text, start);
  if (end < 0 || finishReason === "length") {
    return {
      ok: false,
      truncated: true,
      message: `${NOT_JSON}the answer was cut off before the JSON ${
        text[start] === "[" ? "array" : "object"
      } ended`,
    };
  }
  try {
    const value = JSON.parse(text.slice(start, end)) as Json;
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      return { ok: false, truncated: false, message: notAnObject(value) };
    }
    return { ok: true, value };
  } catch (err) {
    return { ok: false, truncated: false, message: NOT_JSON + (err as Error).message };
  }
}
