import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { MAX_HEADER_BYTES } from '../src/app.js'
import { BODY_LIMITS } from '../src/http/body-limits.js'
import { MAX_INPUT_DEPTH } from '../src/shared/index.js'
import { dataStructureHash } from '../src/iglu/schema-key.js'
import { SELF_DESC_METASCHEMA_URI } from '../src/iglu/self-describing.js'
import { MAX_EVENTS_PER_PAYLOAD, MAX_JSON_DEPTH } from '../src/inspection/pipeline/adapt-payload.js'
import { bootstrapAdmin, requestJson, type ApiClient } from './support/api-client.js'
import { pollUntil, WAIT_DEADLINE } from './support/poll-until.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

const PAYLOAD_DATA = 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4'
const event = { e: 'pv', p: 'web', tv: 'js-3.0.0', aid: 'limits' }

describe('documented limits for each class of route', () => {
  let server: TestApp
  let admin: ApiClient
  const tp2 = (body: string | Buffer) =>
    fetch(`${server.baseUrl}/com.snowplowanalytics.snowplow/tp2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
  const lastBadRow = async () =>
    JSON.parse((await requestJson(`${server.baseUrl}/local/bad`)).body[0].errors[1])

  beforeAll(async () => {
    server = await startTestApp(testConfig())
    admin = await bootstrapAdmin(server)
  })
  afterAll(async () => {
    await server?.close()
  })

  it('turns a payload with too many events into one size_violation, and keeps a full batch', async () => {
    expect(
      (
        await tp2(
          JSON.stringify({
            schema: PAYLOAD_DATA,
            data: Array.from({ length: MAX_EVENTS_PER_PAYLOAD }, () => event),
          }),
        )
      ).status,
    ).toBe(200)
    expect((await requestJson(`${server.baseUrl}/local/all`)).body).toEqual({
      total: MAX_EVENTS_PER_PAYLOAD,
      good: MAX_EVENTS_PER_PAYLOAD,
      bad: 0,
    })

    expect(
      (
        await tp2(
          JSON.stringify({
            schema: PAYLOAD_DATA,
            data: Array.from({ length: MAX_EVENTS_PER_PAYLOAD + 1 }, () => event),
          }),
        )
      ).status,
    ).toBe(200)
    expect((await requestJson(`${server.baseUrl}/local/all`)).body).toEqual({
      total: MAX_EVENTS_PER_PAYLOAD + 1,
      good: MAX_EVENTS_PER_PAYLOAD,
      bad: 1,
    })
    const row = await lastBadRow()
    expect(row.schema).toBe(
      'iglu:com.snowplowanalytics.snowplow.badrows/size_violation/jsonschema/1-0-0',
    )
    expect(row.data.failure).toMatchObject({
      maximumAllowedSizeBytes: BODY_LIMITS.collectorPayload,
      expectation: `a collector payload may carry at most ${MAX_EVENTS_PER_PAYLOAD} events; this one carries ${MAX_EVENTS_PER_PAYLOAD + 1}`,
    })
  })

  it('reads GET requests whose URL is as long as the reference collector takes (20 480 bytes), and answers 431 past the header limit', async () => {
    await requestJson(`${server.baseUrl}/local/reset`)
    const path = (length: number) => {
      const start = '/i?e=pv&p=web&tv=t&pad='
      return start + 'x'.repeat(length - start.length)
    }
    expect((await fetch(`${server.baseUrl}${path(20_000)}`)).status).toBe(200)
    expect(
      (await requestJson(`${server.baseUrl}/local/good`)).body[0].rawEvent.parameters.pad,
    ).toHaveLength(20_000 - '/i?e=pv&p=web&tv=t&pad='.length)
    const overflow = await fetch(`${server.baseUrl}${path(MAX_HEADER_BYTES + 1)}`)
    expect(overflow.status).toBe(431)
    expect(await overflow.json()).toMatchObject({ code: 'HEADERS_TOO_LARGE' })
    expect((await requestJson(`${server.baseUrl}/local/all`)).body).toEqual({
      total: 1,
      good: 1,
      bad: 0,
    })
  })

  it('refuses JSON nested past the reference depth of 40 in events, and accepts 40', async () => {
    const nest = (depth: number) => `${'['.repeat(depth - 1)}{}${']'.repeat(depth - 1)}`
    await requestJson(`${server.baseUrl}/local/reset`)
    expect(
      (
        await tp2(
          `{"schema":"${PAYLOAD_DATA}","data":[${JSON.stringify(event)}],"pad":${nest(MAX_JSON_DEPTH - 1)}}`,
        )
      ).status,
    ).toBe(200)
    expect(
      (
        await tp2(
          `{"schema":"${PAYLOAD_DATA}","data":[${JSON.stringify(event)}],"pad":${nest(MAX_JSON_DEPTH)}}`,
        )
      ).status,
    ).toBe(200)
    expect((await requestJson(`${server.baseUrl}/local/all`)).body).toEqual({
      total: 2,
      good: 1,
      bad: 1,
    })
    expect(JSON.stringify(await lastBadRow())).toContain('maximum allowed JSON depth exceeded')
  })

  it('refuses collector bodies past the read limit with 413, recording nothing', async () => {
    await requestJson(`${server.baseUrl}/local/reset`)
    // Only the headers: the server answers from the declared length, before any of the body.
    const { port } = new URL(server.baseUrl)
    const socket = net.connect(Number(port), '127.0.0.1')
    let answer = ''
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')))
    socket.write(
      'POST /com.snowplowanalytics.snowplow/tp2 HTTP/1.1\r\nHost: localhost\r\n' +
        `content-type: application/json\r\ncontent-length: ${BODY_LIMITS.collectorRead + 1}\r\n\r\n`,
    )
    await pollUntil(
      async () => answer,
      (text) => text.includes('\r\n\r\n'),
      'the answer to the headers alone',
    )
    socket.destroy()
    expect(answer).toMatch(/^HTTP\/1\.1 413 /)
    expect((await requestJson(`${server.baseUrl}/local/all`)).body).toEqual({
      total: 0,
      good: 0,
      bad: 0,
    })
  })

  it('answers 413 with a JSON message past the inspection and API limits', async () => {
    const inspection = await fetch(`${server.baseUrl}/local/good`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ schema: 'x'.repeat(BODY_LIMITS.inspection) }),
    })
    expect(inspection.status).toBe(413)
    expect(await inspection.json()).toMatchObject({ message: expect.any(String) })

    const big = 'x'.repeat(BODY_LIMITS.api)
    const scenario = await admin.call('POST', '/tracking-scenarios/v1', { scenario: { name: big } })
    expect(scenario.status).toBe(413)
    expect(scenario.body).toMatchObject({
      data: [],
      errors: [expect.objectContaining({ title: expect.any(String) })],
    })
    const products = await admin.call('POST', '/data-products/v2', { name: big })
    expect(products.status).toBe(413)
    // Just under the limit is read (and judged on its merits).
    const underLimit = await admin.call('POST', '/data-structures/v1/validation-requests', {
      data: { blob: 'x'.repeat(BODY_LIMITS.api - 100) },
    })
    expect(underLimit.status).not.toBe(413)
  })

  it('refuses the NUL character, which PostgreSQL cannot store, naming where it is', async () => {
    const inPath = await admin.call('GET', '/data-structures/v1/%00/deployments')
    expect(inPath).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('path/hash') },
    })
    const inBody = await admin.call('POST', '/tracking-scenarios/v1', {
      scenario: { name: 'a\u0000b', event: { source: 'iglu:com.acme/x/jsonschema/1-0-0' } },
    })
    expect(inBody.status).toBe(400)
    expect(inBody.body.errors[0].title).toContain('body/scenario/name')
    expect((await admin.call('GET', '/tracking-scenarios/v1')).body.data).toEqual([])
  })

  it('refuses numbers out of JSON range and nesting past the input depth, naming where, before anything is stored', async () => {
    const hash = dataStructureHash(admin.organizationId, 'com.acme', 'limits', 'jsonschema')
    const schemaText = (maximum: string) =>
      `{"$schema":"${SELF_DESC_METASCHEMA_URI}","self":{"vendor":"com.acme","name":"limits","format":"jsonschema","version":"1-0-0"},"description":"d","type":"object","properties":{"n":{"description":"n","type":"number","maximum":${maximum}}},"additionalProperties":false}`
    // 1e400 reads as Infinity and would be written back as null: refused, and nothing is validated.
    const outOfRange = await admin.call(
      'POST',
      '/data-structures/v1/validation-requests',
      `{"data":${schemaText('1e400')}}`,
    )
    expect(outOfRange).toMatchObject({
      status: 400,
      body: {
        message: expect.stringContaining('body/data/properties/n/maximum is a number out of range'),
      },
    })
    const negative = await admin.call(
      'POST',
      '/tracking-scenarios/v1',
      `{"scenario":{"name":"n","event":{"schema":{"type":"number","minimum":-1e999}}}}`,
    )
    expect(negative.status).toBe(400)
    expect(negative.body.errors[0].title).toContain('body/scenario/event/schema/minimum')
    expect(
      (
        await admin.call('POST', '/data-structures/v1/deployment-requests', {
          source: 'VALIDATED',
          target: 'DEV',
          vendor: 'com.acme',
          name: 'limits',
          format: 'jsonschema',
          version: '1-0-0',
        })
      ).status,
    ).toBe(409)
    // A finite large number is kept as it was sent.
    expect(
      (
        await admin.call(
          'POST',
          '/data-structures/v1/validation-requests',
          `{"data":${schemaText('1e300')}}`,
        )
      ).body.success,
    ).toBe(true)
    await admin.call('POST', '/data-structures/v1/deployment-requests', {
      source: 'VALIDATED',
      target: 'DEV',
      vendor: 'com.acme',
      name: 'limits',
      format: 'jsonschema',
      version: '1-0-0',
    })
    const kept = await admin.call('GET', `/data-structures/v1/${hash}/versions/1-0-0?env=DEV`)
    expect(kept.body.properties.n.maximum).toBe(1e300)

    // Nested past the limit anywhere in the body: 400 (writing such a value out again would overflow the stack: a 500 before).
    const nest = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`
    const deepMeta = await admin.call(
      'PUT',
      `/data-structures/v1/${hash}/meta`,
      `{"hidden":false,"schemaType":"event","extra":{"x":${nest(30_000)}}}`,
    )
    expect(deepMeta).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining(`body/extra/x/0/0`) },
    })
    expect(deepMeta.body.message).toContain(`nests deeper than ${MAX_INPUT_DEPTH} levels`)
    const deepAsync = await admin.call(
      'POST',
      '/data-structures/v1/validation-requests?async=true',
      `{"data":${nest(200_000)}}`,
    )
    expect(deepAsync.status).toBe(400)
    const deepDeployment = await admin.call(
      'POST',
      '/data-structures/v1/deployment-requests?async=true',
      `{"source":"DEV","target":"PROD","vendor":"com.acme","name":"limits","format":"jsonschema","version":"1-0-0","extra":${nest(30_000)}}`,
    )
    expect(deepDeployment.status).toBe(400)
    // Just inside the limit is read and judged on its merits.
    const atLimit = await admin.call(
      'PUT',
      `/data-structures/v1/${hash}/meta`,
      `{"hidden":false,"schemaType":"event","extra":{"x":${nest(MAX_INPUT_DEPTH - 3)}}}`,
    )
    expect(atLimit.status, JSON.stringify(atLimit.body)).toBe(200)
    const record = await admin.call('GET', `/data-structures/v1/${hash}`)
    expect(JSON.stringify(record.body.meta.extra.x)).toBe(nest(MAX_INPUT_DEPTH - 3))
    expect(
      (await admin.call('GET', `/data-structures/v1/${hash}/deployments`)).body.map(
        (d: { env: string }) => d.env,
      ),
    ).toEqual(['DEV'])
  })

  it('deletes with a JSON content type and no body, and still refuses an empty JSON body elsewhere', async () => {
    const created = await admin.call('POST', '/tracking-scenarios/v1', {
      scenario: { name: 'to delete' },
    })
    const id: string = created.body.data[0].id
    const url = `${server.baseUrl}/api/msc/v1/organizations/${admin.organizationId}/tracking-scenarios/v1/${id}`
    const headers = {
      authorization: `Bearer ${admin.accessToken}`,
      'content-type': 'application/json',
    }
    expect((await requestJson(url, { method: 'PUT', headers, body: '' })).status).toBe(400)
    expect((await requestJson(url, { method: 'DELETE', headers, body: '' })).body).toEqual({
      data: [],
      includes: [],
      errors: [],
    })
    expect((await admin.call('GET', `/tracking-scenarios/v1/${id}`)).status).toBe(404)
  })

  it('refuses an edit of a scenario with no version left (the next one would not fit its column), and keeps it as it was', async () => {
    const created = await admin.call('POST', '/tracking-scenarios/v1', {
      scenario: { name: 'last version', version: 2_147_483_647 },
    })
    const id: string = created.body.data[0].id
    const edit = await admin.call('PUT', `/tracking-scenarios/v1/${id}`, {
      scenario: { name: 'last version', description: 'more' },
    })
    expect(edit.status).toBe(422)
    expect(edit.body.errors).toEqual([
      expect.objectContaining({ type: 'Error', code: 'InvalidVersion', source: 'version' }),
    ])
    const after = await admin.call('GET', `/tracking-scenarios/v1/${id}?withHistory=true`)
    expect(after.body.data[0].version).toBe(2_147_483_647)
    expect(after.body.data[0].description).not.toBe('more')
    expect(after.body.includes.map((r: { version: number }) => r.version)).toEqual([2_147_483_647])
  })
})

describe('connections', () => {
  /** A raw connection, with everything the server sent and whether it closed. */
  async function connect(server: TestApp) {
    const { port } = new URL(server.baseUrl)
    const socket = net.connect(Number(port), '127.0.0.1')
    const state = { text: '', closed: false, socket }
    socket.on('data', (chunk: Buffer) => (state.text += chunk.toString('latin1')))
    socket.on('close', () => (state.closed = true))
    socket.on('error', () => undefined)
    await new Promise<void>((resolve) => socket.once('connect', resolve))
    return state
  }

  it('answers 408 and closes a connection whose request is not finished in time, and nothing is stored', async () => {
    const server = await startTestApp(testConfig({ http: { requestTimeoutMs: 1000 } }))
    try {
      const slow = await connect(server)
      const body = JSON.stringify({ schema: PAYLOAD_DATA, data: [event] })
      slow.socket.write(
        `POST /com.snowplowanalytics.snowplow/tp2 HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
      )
      await vi.waitFor(() => expect(slow.closed).toBe(true), { timeout: 15_000 })
      expect(slow.text).toMatch(/^HTTP\/1\.1 408 /)
      expect(JSON.parse(slow.text.slice(slow.text.indexOf('\r\n\r\n') + 4))).toMatchObject({
        code: 'REQUEST_TIMEOUT',
      })
      expect((await requestJson(`${server.baseUrl}/local/all`)).body).toEqual({
        total: 0,
        good: 0,
        bad: 0,
      })
    } finally {
      await server.close()
    }
  })

  it('closes connections past the most it keeps open at once, and takes new ones once others close', async () => {
    const server = await startTestApp(testConfig({ http: { maxConnections: 3 } }))
    try {
      const open = [await connect(server), await connect(server), await connect(server)]
      const refused = await connect(server)
      await vi.waitFor(() => expect(refused.closed).toBe(true), WAIT_DEADLINE)
      expect(refused.text).toBe('')
      for (const connection of open) expect(connection.closed).toBe(false)
      open[0]!.socket.destroy()
      await vi.waitFor(
        async () => expect((await fetch(`${server.baseUrl}/health`)).status).toBe(200),
        WAIT_DEADLINE,
      )
    } finally {
      await server.close()
    }
  })

  it('stops although a client holds a connection open without sending anything, and lets a request in progress finish', async () => {
    const server = await startTestApp(testConfig())
    const silent = await connect(server)
    // A request still being answered when the stop begins: its body arrives after the stop started.
    const busy = await connect(server)
    const body = JSON.stringify({ schema: PAYLOAD_DATA, data: [event] })
    // The stop begins once the server has the request's headers: it is then a request in progress.
    const received = new Promise((resolve) => server.app.http.server.once('request', resolve))
    busy.socket.write(
      `POST /com.snowplowanalytics.snowplow/tp2 HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    )
    await received
    const closing = server.close()
    busy.socket.write(body.slice(10))
    await closing
    expect(silent.closed).toBe(true)
    expect(busy.text).toMatch(/^HTTP\/1\.1 200 /)
  })
})
