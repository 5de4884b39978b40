/**
 * The operations (./registry.ts: every operation once, and `OPERATIONS`) with
 * what their modules export besides: the argument checks, the JSON Schemas, the
 * REST bindings, the shared shapes. The hosts (server/, cli/, mcp/) derive their
 * surfaces from them here; the engine's `operations` namespace (engine/mod.ts) is
 * the registry alone, so the browser bundle, which re-exports it, leaves these out.
 *
 * @module
 */
export * from "./registry.ts";
export * from "./audit.ts";
export * from "./authoring.ts";
export * from "./blobs.ts";
export * from "./composition.ts";
export * from "./generation.ts";
export * from "./input.ts";
export * from "./invoker.ts";
export * from "./json_schema.ts";
export * from "./models.ts";
export * from "./operation.ts";
export * from "./pairing.ts";
export * from "./reads.ts";
export * from "./recovery.ts";
export * from "./remote.ts";
export * from "./views.ts";
export * from "./writes.ts";
