/** Name and version of the service, reported by every surface. */
export const SERVICE_NAME = "reactive-model-service";
/** Semantic version of this build. */
export const SERVICE_VERSION = "0.1.0";
