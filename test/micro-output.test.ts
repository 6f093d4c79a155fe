import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PassThrough } from 'node:stream'
import { transform } from 'snowplow-analytics-sdk'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../src/config/config.js'
import { describeWithSharedData, IGLU_CENTRAL } from './support/shared-data.js'
import { pollUntil } from './support/poll-until.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

const SP = 'com.snowplowanalytics.snowplow'
const q = (params: Record<string, string>) => new URLSearchParams(params).toString()
const contexts = JSON.stringify({
  schema: `iglu:${SP}/contexts/jsonschema/1-0-1`,
  data: [
    {
      schema: `iglu:${SP}/web_page/jsonschema/1-0-0`,
      data: { id: '5cea9899-4a4d-4c84-9b4d-3b0c1c0e1a2f' },
    },
  ],
})
const pageView = q({
  e: 'pv',
  p: 'web',
  aid: 'shop',
  tv: 'js-3',
  url: 'http://shop.test:8080/a?b=1',
  page: 'Shop',
  res: '1920x1080',
  cookie: '1',
  se_va: '2',
  dtm: '1630238465748',
  co: contexts,
})

/** Lines written to a stream, as they arrive. */
function capture() {
  const stream = new PassThrough()
  const lines: string[] = []
  stream.on('data', (chunk: Buffer) =>
    lines.push(
      ...chunk
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== ''),
    ),
  )
  return { stream, lines }
}

describeWithSharedData('event outputs', () => {
  let destination: Server
  let destinationUrl: string
  const received: { contentType: string | undefined; body: string }[] = []
  let onReceive: () => void = () => undefined

  beforeAll(async () => {
    destination = createServer((request, response) => {
      let body = ''
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')))
      request.on('end', () => {
        received.push({ contentType: request.headers['content-type'], body })
        response.end('ok')
        onReceive()
      })
    })
    await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', resolve))
    destinationUrl = `http://127.0.0.1:${(destination.address() as AddressInfo).port}/events`
  })
  afterAll(async () => new Promise((resolve) => destination.close(resolve)))

  it('prints enriched TSV that an independent parser (snowplow-analytics-sdk) reads back, and forwards it', async () => {
    const { stream, lines } = capture()
    const arrived = new Promise<void>((resolve) => (onReceive = resolve))
    const server: TestApp = await startTestApp(
      testConfig({
        inspection: { igluDirs: [IGLU_CENTRAL], output: 'tsv', destination: destinationUrl },
      }),
      { stdout: stream },
    )
    try {
      await fetch(`${server.baseUrl}/i?${pageView}`)
      await arrived
      expect(lines).toHaveLength(1)
      const columns = (lines[0] ?? '').split('\t')
      expect(columns).toHaveLength(131)
      const parsed = transform(lines[0] ?? '') as unknown as Record<string, unknown>
      expect(parsed).toMatchObject({
        app_id: 'shop',
        platform: 'web',
        event: 'page_view',
        page_urlhost: 'shop.test',
        page_urlport: 8080,
        page_title: 'Shop',
        dvce_screenwidth: 1920,
        br_cookies: true,
        se_value: '2.0',
        dvce_created_tstamp: '2021-08-29T12:01:05.748Z',
      })
      expect(parsed.contexts_com_snowplowanalytics_snowplow_web_page_1).toEqual([
        { id: '5cea9899-4a4d-4c84-9b4d-3b0c1c0e1a2f' },
      ])
      expect(received).toEqual([{ contentType: 'text/tab-separated-values', body: lines[0] }])
    } finally {
      await server.close()
    }
  })

  it('prints flattened JSON, one event per line, including incomplete events', async () => {
    const { stream, lines } = capture()
    const server = await startTestApp(
      testConfig({ inspection: { igluDirs: [IGLU_CENTRAL], output: 'json' } }),
      { stdout: stream },
    )
    try {
      await fetch(`${server.baseUrl}/i?${pageView}`)
      await fetch(`${server.baseUrl}/i?e=pp&p=web&eid=broken`)
      // Events are printed as they are stored, right after the answer: any inspection query waits for that.
      await fetch(`${server.baseUrl}/local/all`)
      expect(lines).toHaveLength(2)
      // Doubles as Micro prints them (Java's Double.toString).
      expect(lines[0]).toContain('"se_value":2.0')
      const [good, incomplete] = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(good).toMatchObject({
        app_id: 'shop',
        contexts_com_snowplowanalytics_snowplow_web_page_1: [
          expect.objectContaining({ id: '5cea9899-4a4d-4c84-9b4d-3b0c1c0e1a2f' }),
        ],
      })
      expect(incomplete).toHaveProperty('contexts_com_snowplowanalytics_snowplow_failure_1')
    } finally {
      await server.close()
    }
  })

  it('prints the events of every answered request before the server stops, even one whose schema is still being fetched', async () => {
    // An Iglu server that answers only once close() was called: the event's processing is still
    // waiting for it then.
    const slowSchema = {
      $schema:
        'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#',
      self: { vendor: 'com.acme', name: 'slow', format: 'jsonschema', version: '1-0-0' },
      type: 'object',
    }
    let lookups = 0
    let openGate: () => void = () => undefined
    const gate = new Promise<void>((resolve) => (openGate = resolve))
    const iglu = createServer((_request, response) => {
      lookups++
      void gate.then(() =>
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(slowSchema)),
      )
    })
    await new Promise<void>((resolve) => iglu.listen(0, '127.0.0.1', resolve))
    const { stream, lines } = capture()
    const server = await startTestApp(
      testConfig({
        inspection: {
          output: 'json',
          customRegistry: {
            url: `http://127.0.0.1:${(iglu.address() as AddressInfo).port}`,
            apiKey: null,
          },
        },
      }),
      { stdout: stream },
    )
    let closing: Promise<void> | null = null
    try {
      const ue = JSON.stringify({
        schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
        data: { schema: 'iglu:com.acme/slow/jsonschema/1-0-0', data: {} },
      })
      const answer = await fetch(
        `${server.baseUrl}/i?${q({ e: 'ue', p: 'web', aid: 'closing', ue_pr: ue })}`,
      )
      expect(answer.status).toBe(200)
      await pollUntil(
        async () => lookups,
        (n) => n > 0,
        'the schema to be asked for',
      )
      closing = server.close()
      expect(lines).toEqual([])
      openGate()
      await closing
    } finally {
      openGate()
      if (closing === null) await server.close()
      await new Promise((resolve) => iglu.close(resolve))
    }
    expect(lookups).toBeGreaterThan(0)
    expect(
      lines.map(
        (line) =>
          (JSON.parse(line) as { app_id: string; unstruct_event_com_acme_slow_1?: unknown }).app_id,
      ),
    ).toEqual(['closing'])
  })

  it('refuses contradictory output flags', () => {
    expect(() => loadConfig({ outputTsv: true, outputJson: true }, {})).toThrow(
      /Cannot specify both --output-tsv and --output-json/,
    )
    expect(() => loadConfig({ destination: 'http://x.test' }, {})).toThrow(ConfigError)
    expect(
      loadConfig({ outputJson: true, destination: 'http://x.test/in' }, {}).inspection,
    ).toMatchObject({ output: 'json', destination: 'http://x.test/in' })
  })
})
