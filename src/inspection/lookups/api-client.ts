import type { ApiRequest } from '../pipeline/enrichments/api-request.js'

/**
 * Sends the requests of the API request enrichment as Enrich sends them: `content-type:
 * application/json` and `accept: *\/*`, HTTP basic authentication when configured, redirects not
 * followed. The configured timeout covers the whole exchange, and an answer longer than
 * `maxBytes` is refused, so that no endpoint can hold or flood the collector.
 */
export async function sendApiRequest(
  request: ApiRequest,
  maxBytes: number,
): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: '*/*',
  }
  if (request.basicAuth !== null)
    headers.authorization = `Basic ${Buffer.from(`${request.basicAuth.username}:${request.basicAuth.password}`).toString('base64')}`
  let response: Response
  const signal = AbortSignal.timeout(request.timeoutMs)
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers,
      ...(request.body === null ? {} : { body: request.body }),
      redirect: 'manual',
      signal,
    })
    const chunks: Uint8Array[] = []
    let length = 0
    if (response.body !== null)
      for await (const chunk of response.body) {
        length += chunk.byteLength
        if (length > maxBytes) {
          await response.body.cancel()
          throw new Error(`the answer is larger than ${maxBytes} bytes`)
        }
        chunks.push(chunk)
      }
    return { status: response.status, text: Buffer.concat(chunks).toString('utf8') }
  } catch (error) {
    if (signal.aborted)
      throw new Error(`${request.method} ${request.url} timed out after ${request.timeoutMs} ms`, {
        cause: error,
      })
    const cause =
      error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ''
    throw new Error(
      `${request.method} ${request.url} failed: ${error instanceof Error ? error.message : String(error)}${cause}`,
      { cause: error },
    )
  }
}
