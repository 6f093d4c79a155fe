import { parseJsonExactly } from '../iglu/index.js'

/**
 * Floe's HTTP APIs as the MCP tools reach them: in the server, through `inject()` with the
 * caller's own token; from `floe mcp`, over the network with a key. Paths are the server's
 * (`/micro/...`), or the organization's Console API under `{org}` (`{org}/data-structures/v1`).
 */
export interface FloeApi {
  call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<{
    readonly status: number
    readonly body: unknown
    /** The answer as the server wrote it (a schema's own bytes). */
    readonly text: string
  }>
}

/** `{org}/…` → the organization's Console API path. */
export const organizationPath = (organizationId: string, path: string) =>
  path.startsWith('{org}')
    ? `/api/msc/v1/organizations/${organizationId}${path.slice('{org}'.length)}`
    : path

/** An answer's body: its JSON (numbers a double rounds kept as written), or its text when it is not JSON. */
export function jsonOrText(text: string): unknown {
  try {
    return parseJsonExactly(text)
  } catch {
    return text
  }
}
