import { monitorEventLoopDelay } from 'node:perf_hooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bootstrapAdmin, requestJson, type ApiClient } from './support/api-client.js'
import { deployToDev, objectSchema } from './support/registry-builders.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { HOSTILE_INPUTS } from './fixtures/hostile-inputs.js'

/** The worst stall of the event loop the issue allows, in milliseconds. */
const MAX_STALL_MS = 200

interface Measured {
  readonly name: string
  readonly status: number
  readonly answer: string
  readonly millis: number
  readonly stallMs: number
  readonly healthMs: number
  /** The answer's body, parsed. */
  readonly body: unknown
}

describe('a hostile corpus against a live server (issue 25)', () => {
  let server: TestApp
  let admin: ApiClient
  const measured: Measured[] = []

  beforeAll(async () => {
    // The server's defaults: the engine's 150 ms budget and the pool's 2 s limit.
    server = await startTestApp({
      ...testConfig(),
      compatibility: { maxMillis: 150 },
      workers: { processes: 2, eager: true, timeoutMs: 2_000, memoryMb: 256, maxQueue: 1_000 },
    })
    admin = await bootstrapAdmin(server)
    // Threads up before measuring: their start-up is not what this test is about.
    await admin.call('POST', '/compatibility-checks', {
      candidate: { type: 'integer' },
      reference: { type: 'number' },
    })
  })
  afterAll(async () => {
    console.info(
      [
        'input | answer | time (ms) | worst stall (ms) | worst /health (ms)',
        ...measured.map(
          (m) =>
            `${m.name} | ${m.status} ${m.answer} | ${m.millis.toFixed(0)} | ${m.stallMs.toFixed(0)} | ${m.healthMs.toFixed(0)}`,
        ),
      ].join('\n'),
    )
    await server?.close()
  })

  /** A tp2 POST of `events`, its answer read. */
  async function postTp2(events: readonly Record<string, string>[]): Promise<Response> {
    const response = await fetch(`${server.baseUrl}/com.snowplowanalytics.snowplow/tp2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
        data: events,
      }),
    })
    await response.arrayBuffer()
    return response
  }

  /** Sends one request while the event loop's delay and a /health probe are watched. */
  async function measure(
    name: string,
    send: () => Promise<{ status: number; body: unknown }>,
  ): Promise<Measured> {
    const delay = monitorEventLoopDelay({ resolution: 10 })
    let healthMs = 0
    let done = false
    const probe = (async () => {
      while (!done) {
        const started = performance.now()
        const health = await fetch(`${server.baseUrl}/health`)
        await health.arrayBuffer()
        healthMs = Math.max(healthMs, performance.now() - started)
      }
    })()
    delay.enable()
    const started = performance.now()
    const response = await send()
    const millis = performance.now() - started
    done = true
    await probe
    delay.disable()
    const body = response.body as Record<string, unknown> | null
    const answer = String(
      body?.outcome ??
        body?.code ??
        (body?.success === undefined ? '' : `success ${String(body.success)}`),
    )
    const result = {
      name,
      status: response.status,
      answer,
      millis,
      stallMs: delay.max / 1e6,
      healthMs,
      body,
    }
    measured.push(result)
    return result
  }

  for (const input of HOSTILE_INPUTS) {
    it(`answers ${input.name} with a 2xx or 4xx, the event loop never stalled past ${MAX_STALL_MS} ms`, async () => {
      const result = await measure(input.name, () =>
        admin.call(input.method, input.path, input.body),
      )
      expect(result.status).toBeGreaterThanOrEqual(200)
      expect(result.status).toBeLessThan(500)
      expect(result.stallMs).toBeLessThan(MAX_STALL_MS)
      expect((await requestJson(`${server.baseUrl}/health`)).status).toBe(200)
    })
  }

  it('answers the pattern pairs of the issue decided, with a witness', async () => {
    for (const input of HOSTILE_INPUTS.slice(0, 2)) {
      const response = await admin.call(input.method, input.path, input.body)
      expect(response.body).toMatchObject({ outcome: 'incompatible', witness: expect.any(String) })
    }
  })

  it('refuses a pattern too large for RE2 at validation, naming the limit', async () => {
    const input = HOSTILE_INPUTS.find((i) => i.name.includes('too large for RE2'))
    const response = await admin.call('POST', input!.path, input!.body)
    expect(response.body).toMatchObject({ success: false })
    expect(JSON.stringify(response.body.errors)).toContain('more than the limit of 2000')
  })

  it('refuses schemas past the published size limits, naming the place and the limit', async () => {
    const expected: Record<string, string> = {
      'validation: 50 000-value enum': 'more than the limit of 10000',
      'validation: 2 000 patternProperties': 'has 2000 patterns, more than the limit of 100',
      'validation: 5 000 anyOf branches': 'has 5000 branches, more than the limit of 200',
      'validation: 3 000 properties':
        '/properties has 3000 properties, more than the limit of 1000',
    }
    for (const [name, message] of Object.entries(expected)) {
      const input = HOSTILE_INPUTS.find((i) => i.name === name)
      const response = await admin.call('POST', input!.path, input!.body)
      expect(response.body, name).toMatchObject({ success: false })
      expect(JSON.stringify(response.body.errors), name).toContain(message)
    }
    const compatibility = HOSTILE_INPUTS.find(
      (i) => i.name === 'compatibility: 3 000 properties each',
    )
    const checked = await admin.call('POST', compatibility!.path, compatibility!.body)
    expect(checked.body).toMatchObject({
      outcome: 'undecidable',
      reasons: [{ code: 'budget', schema: 'candidate' }],
    })
    expect(checked.body.reasons[0].detail).toContain('more than the limit of 1000')
  })

  it('turns events too costly to validate into bad rows that say why, without stalling the collector', async () => {
    // Under the program-size limit, yet costly on long strings: each 100 kB value is refused at once.
    await deployToDev(
      admin,
      objectSchema('com.hostile', 'costly_pattern', '1-0-0', {
        v: { type: 'string', pattern: '[\\s\\S]{600}[bc]' },
      }),
    )
    const value = 'x'.repeat(100_000)
    const unstruct = Buffer.from(
      JSON.stringify({
        schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
        data: { schema: 'iglu:com.hostile/costly_pattern/jsonschema/1-0-0', data: { v: value } },
      }),
    ).toString('base64url')
    const events = Array.from({ length: 3 }, () => ({
      e: 'ue',
      p: 'web',
      tv: 'js-3.0.0',
      ue_px: unstruct,
    }))
    const result = await measure('tp2: three 100 kB events against a costly pattern', async () => {
      const response = await postTp2(events)
      // Wait for the events to be stored: the measure covers their processing. The counts only:
      // parsing the bad rows (each holds its 100 kB event) would be this process's own stall.
      const counts = await requestJson(`${server.baseUrl}/micro/all`)
      return { status: response.status, body: counts.body }
    })
    expect(result.status).toBe(200)
    expect(result.body).toMatchObject({ bad: 3 })
    const bad = (await requestJson(`${server.baseUrl}/local/bad`)).body as unknown[]
    expect(bad).toHaveLength(3)
    expect(JSON.stringify(bad[0])).toContain('too costly to validate')
    expect(result.stallMs).toBeLessThan(MAX_STALL_MS)
  })

  it("checks events of integers past a double's precision without stalling the collector", async () => {
    await deployToDev(
      admin,
      objectSchema('com.hostile', 'long_values', '1-0-0', {
        values: { type: 'array', items: { type: 'integer', minimum: 0 } },
        pad: { type: 'string' },
      }),
    )
    // 9223372036854775808 + i: each is a number a double rounds. 1 000 are kept as written (the
    // second parse runs over the whole 1 MB event); 40 000 are more than are kept: read as doubles.
    const longs = (count: number) =>
      Array.from({ length: count }, (_, i) => String(2n ** 63n + BigInt(i))).join(',')
    const events = {
      'long-values-exact': `{"values":[${longs(1000)}],"pad":"${'x'.repeat(900_000)}"}`,
      'long-values-many': `{"values":[${longs(40_000)}]}`,
    }
    for (const [appId, data] of Object.entries(events)) {
      const uePr = `{"schema":"iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0","data":{"schema":"iglu:com.hostile/long_values/jsonschema/1-0-0","data":${data}}}`
      const result = await measure(`tp2: ${appId}`, async () => {
        const response = await postTp2([
          { e: 'ue', p: 'web', tv: 'js-3.0.0', aid: appId, ue_pr: uePr },
        ])
        // Wait for the event to be stored: the measure covers its processing.
        await requestJson(`${server.baseUrl}/micro/all`)
        return { status: response.status, body: null }
      })
      expect(result.status).toBe(200)
      expect(result.stallMs).toBeLessThan(MAX_STALL_MS)
    }
    const good = (await requestJson(`${server.baseUrl}/micro/good`)).body as {
      event: { app_id: string }
    }[]
    const bad = JSON.stringify((await requestJson(`${server.baseUrl}/micro/bad`)).body)
    expect(
      good.map((e) => e.event.app_id),
      bad.slice(-3000),
    ).toEqual(expect.arrayContaining(Object.keys(events)))
  })

  it('validates events of a schema at the size limits in a worker process, without stalling the collector', async () => {
    // 1 000 properties (the limit): compiling it would hold the event loop for 230–420 ms here.
    const widest = objectSchema(
      'com.hostile',
      'widest',
      '1-0-0',
      Object.fromEntries(
        Array.from({ length: 1_000 }, (_, i) => [`p${i}`, { type: 'string', maxLength: 10 }]),
      ),
    )
    await deployToDev(admin, widest)
    const event = (appId: string, data: Record<string, unknown>) => ({
      e: 'ue',
      p: 'web',
      tv: 'js-3.0.0',
      aid: appId,
      ue_pr: JSON.stringify({
        schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
        data: { schema: 'iglu:com.hostile/widest/jsonschema/1-0-0', data },
      }),
    })
    for (const round of [1, 2]) {
      const result = await measure(
        `tp2: two events of a 1 000-property schema (${round})`,
        async () => {
          const response = await postTp2([
            event(`widest-good-${round}`, { p0: 'short', p999: 'short' }),
            event(`widest-bad-${round}`, { p1: 'much too long', p1000: 'x' }),
          ])
          // Wait for the events to be stored: the measure covers their processing.
          const counts = await requestJson(`${server.baseUrl}/micro/all`)
          return { status: response.status, body: counts.body }
        },
      )
      expect(result.status).toBe(200)
      expect(result.stallMs).toBeLessThan(MAX_STALL_MS)
    }
    const good = (await requestJson(`${server.baseUrl}/micro/good`)).body as {
      event: { app_id: string }
    }[]
    expect(good.map((e) => e.event.app_id)).toEqual(
      expect.arrayContaining(['widest-good-1', 'widest-good-2']),
    )
    const bad = (await requestJson(`${server.baseUrl}/local/bad`)).body as unknown[]
    const widestBad = bad
      .map((row) => JSON.stringify(row))
      .filter((row) => row.includes('widest-bad'))
    expect(widestBad).toHaveLength(2)
    for (const row of widestBad) {
      expect(row).toContain('$.p1: may only be 10 characters long')
      expect(row).toContain('$.p1000: is not defined in the schema')
    }
  })

  it('validates a large document in a worker process, where an error for each item and branch would stall the collector', async () => {
    // A light schema (no worker for it), but each of 40 000 items breaks 50 branches: with every
    // error reported, 2 million errors, which held the event loop 0.5 s.
    const branches = objectSchema('com.hostile', 'branches', '1-0-0', {
      a: {
        type: 'array',
        items: { anyOf: Array.from({ length: 50 }, (_, i) => ({ type: 'string', maxLength: i })) },
      },
    })
    await deployToDev(admin, branches)
    const result = await measure('tp2: 40 000 items, each breaking 50 branches', async () => {
      const response = await postTp2([
        {
          e: 'ue',
          p: 'web',
          tv: 'js-3.0.0',
          aid: 'branches-bad',
          ue_pr: JSON.stringify({
            schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
            data: {
              schema: 'iglu:com.hostile/branches/jsonschema/1-0-0',
              data: { a: Array.from({ length: 40_000 }, () => 0) },
            },
          }),
        },
      ])
      const counts = await requestJson(`${server.baseUrl}/micro/all`)
      return { status: response.status, body: counts.body }
    })
    expect(result.status).toBe(200)
    expect(result.stallMs).toBeLessThan(MAX_STALL_MS)
    const bad = (await requestJson(`${server.baseUrl}/local/bad`)).body as unknown[]
    const rows = bad.map((row) => JSON.stringify(row)).filter((row) => row.includes('branches-bad'))
    expect(rows).toHaveLength(1)
    // Its errors, or the worker's limit when they took longer (2 s here): either way a bad row.
    const says =
      /\$\.a\[0\]: integer found, string expected|could not be validated in a worker process/
    expect(says.test(rows[0] ?? ''), (rows[0] ?? '').slice(-600)).toBe(true)
  })
})
