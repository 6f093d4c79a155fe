import fc from 'fast-check'
import http from 'node:http'
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { collectorRequest, type FuzzRequest } from './support/collector-fuzz-requests.js'
import { requestJson } from './support/api-client.js'
import { documentContract, documentedPath, type ApiDocument } from './support/openapi-contract.js'
import { storageModes } from './support/storage-modes.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { FUZZ_SEED } from './support/fuzz-seed.js'
import { fuzzRuns } from './support/fuzz-settings.js'

// Test infrastructure reads these to replay or lengthen a run; the app never does.
const SEED = FUZZ_SEED
const RUNS = fuzzRuns(1_000, 20_000, 'FLOE_FUZZ_RUNS')
/** On PostgreSQL storage every event is a row written in a transaction: fewer requests keep CI short. */
const DATABASE_RUNS = fuzzRuns(250, 4_000, 'FLOE_FUZZ_DATABASE_RUNS')
const CONCURRENCY = 16

const eventId = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`

interface Answer {
  readonly status: number
  readonly contentType: string | null
  readonly body: string
}

/**
 * Sends one generated request; resolves with its answer, status 0 when the connection ended
 * without one (and no content type, for a request of raw bytes).
 */
function send(target: URL, agent: http.Agent, request: FuzzRequest): Promise<Answer> {
  if (request.raw !== undefined)
    return sendRaw(target, request.raw).then((status) => ({ status, contentType: null, body: '' }))
  return new Promise((resolve) => {
    const body =
      request.items !== undefined
        ? Buffer.from(
            JSON.stringify({
              schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
              data: request.items,
            }),
          )
        : request.body
    const outgoing = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.path,
        agent,
        headers: {
          ...request.headers,
          ...(body === null ? {} : { 'content-length': String(body.length) }),
        },
      },
      (response) => {
        const chunks: Buffer[] = []
        const answer = () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: response.headers['content-type'] ?? null,
            body: Buffer.concat(chunks).toString('latin1'),
          })
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', answer)
        response.on('error', answer)
      },
    )
    // A refused upload (413) may reset the connection while the body is still going out.
    outgoing.on('error', () => resolve({ status: 0, contentType: null, body: '' }))
    outgoing.end(body ?? undefined)
  })
}

function sendRaw(target: URL, bytes: Buffer): Promise<number> {
  return new Promise((resolve) => {
    let answer = ''
    // Written without half-closing: a client that hangs up may see no answer to a request the
    // server still handles, and the count of acknowledged events would be wrong.
    const socket = net.connect({ host: target.hostname, port: Number(target.port) }, () =>
      socket.write(bytes),
    )
    socket.setTimeout(10_000, () => socket.destroy())
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')))
    socket.on('error', () => undefined)
    socket.on('close', () => resolve(Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1] ?? 0)))
  })
}

/**
 * Every accepted event is checked for, so nothing may be evicted: the size bound of the in-memory
 * lists is lifted (the fuzz keeps hundreds of megabytes of large bad payloads; with the bound, the
 * oldest would go, as they should in a server).
 */
const UNBOUNDED = { good: Infinity, bad: Infinity }

describe.each(storageModes)('the collector under fuzzed requests, on $name storage', (mode) => {
  let server: TestApp
  let dropStorage: () => Promise<void> = async () => undefined
  let unhandled = 0
  const onUnhandled = () => unhandled++
  const runs = mode.name === 'memory' ? RUNS : Math.min(RUNS, DATABASE_RUNS)

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled)
    const storage = await mode.create()
    dropStorage = storage.drop
    server = await startTestApp(
      testConfig({
        db: storage.overrides.db,
        inspection: {
          maxEvents: 1_000_000,
          memoryBytes: UNBOUNDED,
          storage: storage.overrides.storage,
          redirects: { enabled: true, domains: [] },
        },
      }),
    )
  })
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled)
    await server?.close()
    await dropStorage()
  })

  it(`answers generated requests without a 5xx, and keeps every accepted event exactly once`, async () => {
    console.info(
      `collector fuzz on ${mode.name}: seed ${SEED}, ${runs} requests (replay with FLOE_FUZZ_SEED=${SEED})`,
    )
    const requests = fc.sample(collectorRequest, { seed: SEED, numRuns: runs })
    let nextId = 0
    const batchIds: string[] = []
    for (const request of requests)
      for (const item of request.items ?? []) batchIds.push((item.eid = eventId(nextId++)))

    const document = (await requestJson(`${server.baseUrl}/openapi.json`)).body as ApiDocument
    const contract = documentContract(document)
    const target = new URL(server.baseUrl)
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY })
    const failures: string[] = []
    const byKind = new Map<string, { sent: number; accepted: number; ms: number }>()
    let expectedRows = 0
    let cursor = 0
    const worker = async () => {
      while (cursor < requests.length) {
        const request = requests[cursor++]!
        const t0 = performance.now()
        const { status, contentType, body } = await send(target, agent, request)
        // An answer of an operation the API document lists is one it describes.
        const operation =
          request.raw === undefined ? documentedPath(document, request.method, request.path) : null
        if (operation !== null && status !== 0) {
          const parsed = contentType?.includes('json') === true ? JSON.parse(body) : body
          const { problem } = contract.check(request.method, operation, status, contentType, parsed)
          if (problem !== null)
            failures.push(`${problem} for ${request.kind} ${request.path.slice(0, 120)}`)
        }
        const tally = byKind.get(request.kind) ?? { sent: 0, accepted: 0, ms: 0 }
        byKind.set(request.kind, {
          sent: tally.sent + 1,
          accepted: tally.accepted + ((request.recordedOn ?? [200]).includes(status) ? 1 : 0),
          ms: Math.round(tally.ms + performance.now() - t0),
        })
        if (status >= 500 || (request.statuses !== null && !request.statuses.includes(status))) {
          failures.push(
            `${request.kind} ${request.method} ${request.path.slice(0, 120)} → ${status}`,
          )
        }
        if ((request.recordedOn ?? [200]).includes(status)) expectedRows += request.rowsIfAccepted
      }
    }
    await Promise.all(Array.from({ length: CONCURRENCY }, worker))
    agent.destroy()
    console.info(
      `collector fuzz on ${mode.name} by kind: ${JSON.stringify(Object.fromEntries(byKind))}`,
    )

    expect(failures.slice(0, 20)).toEqual([])
    expect(unhandled).toBe(0)
    expect((await requestJson(`${server.baseUrl}/health`)).status).toBe(200)

    // Conservation: what came in went out, once, as a good or a bad event.
    const counts = (await requestJson(`${server.baseUrl}/local/all`)).body
    expect(counts.good + counts.bad).toBe(expectedRows)
    expect(counts.total).toBe(expectedRows)
    const seen = new Map<string, number>()
    const note = (eid: unknown) =>
      typeof eid === 'string' && seen.set(eid, (seen.get(eid) ?? 0) + 1)
    // Every kept event, of every fuzzed request, has the shape the API document gives it.
    const kept = async (path: string) => {
      const answer = await requestJson(`${server.baseUrl}${path}`)
      const { problem } = contract.check(
        'GET',
        path,
        answer.status,
        answer.headers.get('content-type'),
        answer.body,
      )
      expect(problem).toBeNull()
      return answer.body as { rawEvent: { parameters: Record<string, unknown> } | null }[]
    }
    for (const event of await kept('/local/good')) note(event.rawEvent?.parameters.eid)
    for (const event of await kept('/local/bad')) note(event.rawEvent?.parameters?.eid)
    const lostOrDoubled = batchIds.filter((id) => seen.get(id) !== 1)
    expect(lostOrDoubled.slice(0, 10)).toEqual([])
    console.info(
      `collector fuzz on ${mode.name}: ${expectedRows} rows expected and found (${counts.good} good, ${counts.bad} bad); ${batchIds.length} batch events each found once`,
    )
  }, 600_000)
})
