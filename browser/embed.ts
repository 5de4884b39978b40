/**
 * The embed script (`dist/web/svc-embed.js`): one ES module that defines
 * `<svc-model>` (and `<svc-view>`) and exports a small API. A plain page needs
 *
 * ```html
 * <script type="module" src="svc-embed.js"></script>
 * <svc-model src="spec.json"></svc-model>
 * ```
 *
 * @module
 */
export { SvcModel } from "./embed/model_element.ts";
export { createModelService, getState, mutate, open, StoredModelKept, subscribe } from "./embed/api.ts";
export { SvcView } from "./elements/view_element.ts";
// What the API's calls reject with (`kind` as a server's status, `body` as its answer): a host tells refusals by it.
export { ServiceError } from "../engine/mod.ts";
