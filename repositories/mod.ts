/**
 * The configured repositories (`svc.composition.repositories`), built for a
 * service: `http` ones over another server's REST API, `mcp` ones over a child
 * process. The service closes them when it closes.
 *
 * @module
 */
import type { Repository } from "../engine/composition/repository.ts";
import { parseRepositories } from "./config.ts";

export { parseRepositories, type RepositoryConfig, splitCommand } from "./config.ts";

/**
 * The repositories of the configured value (empty when unset); the MCP client
 * is loaded only when an `mcp` repository is configured.
 */
export async function openRepositories(
  raw: string | undefined,
  warn: (message: string) => void,
): Promise<Repository[]> {
  const configs = parseRepositories(raw, warn);
  const out: Repository[] = [];
  for (const config of configs) {
    if (config.transport === "http") {
      const { httpRepository } = await import("./http.ts");
      out.push(httpRepository({
        id: config.id,
        repoClass: config.repoClass,
        baseUrl: config.locator as string,
        credential: config.credential,
        lookupTimeoutMs: config.lookupTimeoutMs,
        openTimeoutMs: config.openTimeoutMs,
      }));
    } else {
      const { mcpRepository } = await import("./mcp.ts");
      out.push(mcpRepository({
        id: config.id,
        repoClass: config.repoClass,
        argv: config.locator as string[],
        credential: config.credential,
        lookupTimeoutMs: config.lookupTimeoutMs,
        log: warn,
      }));
    }
  }
  return out;
}
