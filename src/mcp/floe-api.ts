import { parseJsonExactly } from '../iglu/index.js'

/** A request body already written as JSON text (a schema with its numbers as the client wrote them). */
export class JsonText {
  constructor(readonly text: string) {}
}

/** The text of a request body: JSON text as it is, any other value written out. */
export const requestText = (body: unknown): string =>
  body instanceof JsonText ? body.text : JSON.stringify(body)

/**
 * Floe's HTTP APIs as the MCP tools reach them: through `inject()`, with the caller's own token.
 * Paths are the server's (`/micro/...`), or the organization's Console API under `{org}`
 * (`{org}/data-structures/v1`).
 */
export interface FloeApi {
  call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<{
    readonly status: number
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
