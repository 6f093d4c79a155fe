import { request } from 'node:http'

/** The version snowplow-cli sends in `X-SNOWPLOW-CLI` (any value: the server only passes it by). */
export const CLI_VERSION = '0.13.0'

/** A body sent as this text, not as JSON written from a value. */
export class RawBody {
  constructor(readonly text: string) {}
}

export interface WireAnswer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: any
}

/**
 * One request as snowplow-cli's Go client makes it, to `{baseUrl}{path}`: the CLI header, the bearer token when given, a
 * compact JSON body with **no Content-Type header**, over a real socket.
 */
export function cliRequest(
  baseUrl: string,
  method: string,
  path: string,
  options: { token?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<WireAnswer> {
  // Joined as Go joins them: a host configured with a trailing slash gives `//api/...`.
  const url = new URL(`${baseUrl}${path}`)
  const payload =
    options.body === undefined
      ? null
      : Buffer.from(
          options.body instanceof RawBody ? options.body.text : JSON.stringify(options.body),
        )
  const headers: Record<string, string> = {
    'X-SNOWPLOW-CLI': CLI_VERSION,
    'User-Agent': 'Go-http-client/1.1',
    'Accept-Encoding': 'gzip',
    ...options.headers,
  }
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  if (payload !== null) headers['Content-Length'] = String(payload.length)
  return new Promise((resolve, reject) => {
    const sent = request(url, { method, headers }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        let body: unknown = text
        try {
          body = JSON.parse(text)
        } catch {
          // not JSON: kept as text
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body })
      })
      response.on('error', reject)
    })
    sent.on('error', reject)
    if (payload !== null) sent.write(payload)
    sent.end()
  })
}
