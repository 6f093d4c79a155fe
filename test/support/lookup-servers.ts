import { mkdirSync, writeFileSync } from 'node:fs'
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { requestJson } from './api-client.js'
import type { TestApp } from './test-app.js'

/**
 * What the tests of the lookup enrichments (API request, currency conversion) share: a local
 * HTTP server that records what it was asked, enrichment configurations and Iglu schemas written
 * to a directory, tracker requests, and the good events and enrichment failures Micro answers.
 */

export interface SeenRequest {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage['headers']
  readonly body: string
}

export interface LocalServer {
  readonly url: string
  readonly requests: SeenRequest[]
  close(): Promise<void>
}

/** A server on 127.0.0.1 whose `answer` gives each request's status and JSON body. */
export async function startLocalServer(
  answer: (seen: SeenRequest) => Promise<[number, unknown]> | [number, unknown],
): Promise<LocalServer> {
  const requests: SeenRequest[] = []
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const seen = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      requests.push(seen)
      void Promise.resolve(answer(seen)).then(([status, body]) => {
        if (!response.destroyed)
          response
            .writeHead(status, { 'content-type': 'application/json' })
            .end(JSON.stringify(body))
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export const SP = 'com.snowplowanalytics.snowplow'

/** Writes each enrichment configuration (`file → {schema, parameters}`) into `directory`. */
export function writeEnrichments(
  directory: string,
  configs: Record<string, { readonly schema: string; readonly parameters: object }>,
): string {
  mkdirSync(directory, { recursive: true })
  for (const [file, { schema, parameters }] of Object.entries(configs)) {
    const name = /\/([a-z_]+)\/jsonschema\//.exec(schema)?.[1] ?? file
    writeFileSync(
      path.join(directory, file),
      JSON.stringify({ schema, data: { vendor: SP, name, enabled: true, parameters } }),
    )
  }
  return directory
}

/** Writes an Iglu repository of object schemas (`iglu:vendor/name/jsonschema/1-0-0 → properties`). */
export function writeIgluSchemas(root: string, schemas: Record<string, object>): string {
  for (const [uri, properties] of Object.entries(schemas)) {
    const [vendor, name, format, version] = uri.replace(/^iglu:/, '').split('/') as [
      string,
      string,
      string,
      string,
    ]
    const where = path.join(root, 'schemas', vendor, name, format)
    mkdirSync(where, { recursive: true })
    writeFileSync(
      path.join(where, version),
      JSON.stringify({
        $schema:
          'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#',
        self: { vendor, name, format, version },
        type: 'object',
        properties,
        additionalProperties: false,
      }),
    )
  }
  return root
}

/**
 * A tracker GET request (`/i`) with these parameters; `userAgent` null sends no User-Agent header
 * at all (node:http, since fetch always sends one).
 */
export async function track(
  floe: TestApp,
  parameters: Record<string, string>,
  userAgent: string | null = 'lookup-test/1',
): Promise<void> {
  const query = new URLSearchParams({ p: 'web', tv: 'js-3', ...parameters })
  const status = await new Promise<number | undefined>((resolve, reject) => {
    const headers = userAgent === null ? {} : { 'user-agent': userAgent }
    httpRequest(`${floe.baseUrl}/i?${query.toString()}`, { headers }, (response) => {
      response.resume()
      response.on('end', () => resolve(response.statusCode))
    })
      .on('error', reject)
      .end()
  })
  if (status !== 200) throw new Error(`the collector answered ${String(status)}`)
}

export interface GoodEvent {
  readonly app_id: string
  readonly derived_contexts?: { readonly data: { schema: string; data: any }[] }
  readonly [field: string]: unknown
}

/** A good event's derived entities (Micro leaves derived_contexts out when there are none). */
export const entities = (event: GoodEvent | undefined) => event?.derived_contexts?.data ?? []

/** Micro's good events, oldest first. */
export async function goodEvents(floe: TestApp): Promise<GoodEvent[]> {
  const good = (await requestJson(`${floe.baseUrl}/micro/good`)).body as { event: GoodEvent }[]
  return good.map((g) => g.event).reverse()
}

/** The enrichment failures of Micro's bad rows, oldest row first: one list per row. */
export async function enrichmentFailures(floe: TestApp): Promise<unknown[][]> {
  const bad = (await requestJson(`${floe.baseUrl}/micro/bad`)).body as { errors: string[] }[]
  return bad.reverse().map((row) => {
    const parsed = JSON.parse(row.errors[1] ?? '{}') as {
      schema: string
      data: { failure: { messages: unknown[] } }
    }
    if (!parsed.schema.includes('enrichment_failures'))
      throw new Error(`not an enrichment failure: ${parsed.schema}`)
    return parsed.data.failure.messages
  })
}

/** Starts apps at once; when one fails, closes the others and throws its error. */
export async function startAll<T extends readonly Promise<TestApp>[]>(
  ...starting: T
): Promise<{ -readonly [K in keyof T]: TestApp }> {
  const settled = await Promise.allSettled(starting)
  const failed = settled.find((s) => s.status === 'rejected')
  if (failed === undefined)
    return settled.map((s) => (s as PromiseFulfilledResult<TestApp>).value) as {
      -readonly [K in keyof T]: TestApp
    }
  await Promise.all(settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.close()] : [])))
  throw failed.reason
}

export async function resetMicro(floe: TestApp): Promise<void> {
  await requestJson(`${floe.baseUrl}/micro/reset`)
}

export async function microCounts(floe: TestApp): Promise<unknown> {
  return (await requestJson(`${floe.baseUrl}/micro/all`)).body
}
