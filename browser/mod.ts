/**
 * The browser entry of the engine: everything a page needs to run models
 * in-process (ModelService with {@link webPlatform}, the embedded tests runner,
 * spec validation, paths). It re-exports the isomorphic engine unchanged and adds
 * nothing host-specific, so a page and the server run the very same code.
 *
 * Bundled into one ESM file by `deno task bundle:browser` (see build.ts).
 *
 * @module
 */
export * from "../engine/mod.ts";
