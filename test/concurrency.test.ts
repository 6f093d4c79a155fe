import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compareSchemaVer, parseSchemaVer } from '../src/iglu/schema-ver.js'
import { requestJson, type ApiClient, type JsonResponse } from './support/api-client.js'
import { objectSchema } from './support/registry-builders.js'
import { halfWrittenRows } from './support/store-invariants.js'
import { startAdminApp } from './support/admin-app.js'
import { backends } from './support/test-databases.js'
import type { TestApp } from './support/test-app.js'

// Issue 8, item 6: 200 mixed requests at once (deployments, scenario edits, collected events, resets),
// then the invariants: versions only go up, no acknowledged update is lost, the counts add up.
// Requests run in lanes: a lane sends its requests one after the other, and every lane runs at once,
// so that resets fall between events and versions are asked for in order per client.

const SCHEMAS = ['alpha', 'beta', 'gamma']
const VERSIONS = ['1-0-0', '1-0-1', '1-0-2', '1-0-3', '1-0-4']
const SCENARIOS = 4
const EDIT_LANES_PER_SCENARIO = 5
const EDITS_PER_LANE = 3
const EVENT_LANES = 19
const EVENT_OPS_PER_LANE = 5
const EXPECTED_REQUESTS =
  SCHEMAS.length * VERSIONS.length * 3 +
  SCENARIOS * EDIT_LANES_PER_SCENARIO * EDITS_PER_LANE +
  EVENT_LANES * EVENT_OPS_PER_LANE

const SP = 'com.snowplowanalytics.snowplow'
const pagePing = (marker: string, isBad: boolean) => ({
  e: 'pp',
  p: 'web',
  tv: 'race',
  aid: marker,
  ...(isBad ? { eid: 'invalidEventId' } : {}),
})

/** Orders what the test saw: one tick per request sent and per answer received (one thread, so a total order). */
class LogicalClock {
  private now = 0
  tick(): number {
    return ++this.now
  }
}

interface SentEvent {
  readonly marker: string
  readonly isBad: boolean
  sent: number
  answered: number
  status: number
}

/** The marker of a listed event: app_id of a good event, the `aid` parameter in a bad row's raw payload. */
function markerOfGood(event: { event: { app_id: string | null } }): string | null {
  return event.event.app_id
}
function markerOfBad(event: { errors: string[] }): string | null {
  const row = JSON.parse(event.errors[1] ?? 'null') as {
    data?: { payload?: { raw?: { parameters?: { name: string; value: string }[] } } }
  } | null
  return row?.data?.payload?.raw?.parameters?.find((p) => p.name === 'aid')?.value ?? null
}

describe.each(backends)('200 concurrent mixed requests on $name', (backend) => {
  let server: TestApp
  let admin: ApiClient
  let stop: () => Promise<void> = async () => undefined

  beforeAll(async () => {
    ;({ server, admin, stop } = await startAdminApp(backend))
  })
  afterAll(async () => stop())

  it('keeps versions monotonic, loses no acknowledged update, and keeps the inspection counts consistent', async () => {
    const scenarioIds: string[] = []
    for (let s = 0; s < SCENARIOS; s++)
      scenarioIds.push(
        (await admin.call('POST', '/tracking-scenarios/v1', { scenario: { name: `Race ${s}` } }))
          .body.data[0].id,
      )

    const clock = new LogicalClock()
    let requests = 0
    const call = (method: string, path: string, body?: unknown) => {
      requests++
      return admin.call(method, path, body)
    }
    const collect = (path: string, init: { method?: string; body?: unknown } = {}) => {
      requests++
      return requestJson(`${server.baseUrl}${path}`, init)
    }
    type Step = () => Promise<void>
    const lanes: Step[][] = []

    // Deployments: per schema, a lane validates and deploys each version in order; a racing lane deploys the same versions.
    const chainAnswers: JsonResponse[] = []
    const racerAnswers: JsonResponse[] = []
    const hashes = new Map<string, string>()
    const deploymentBody = (name: string, version: string) => ({
      source: 'VALIDATED',
      target: 'DEV',
      vendor: 'com.acme.race',
      name,
      format: 'jsonschema',
      version,
      message: `${name} ${version}`,
    })
    for (const name of SCHEMAS) {
      lanes.push(
        VERSIONS.map((version) => async () => {
          chainAnswers.push(
            await call('POST', '/data-structures/v1/validation-requests', {
              data: objectSchema('com.acme.race', name, version, { n: { type: 'integer' } }),
            }),
          )
          const deployed = await call(
            'POST',
            '/data-structures/v1/deployment-requests',
            deploymentBody(name, version),
          )
          chainAnswers.push(deployed)
          if (deployed.status === 201) hashes.set(name, deployed.body.dataStructureHash)
        }),
      )
      lanes.push(
        VERSIONS.map(
          (version) => async () =>
            void racerAnswers.push(
              await call(
                'POST',
                '/data-structures/v1/deployment-requests',
                deploymentBody(name, version),
              ),
            ),
        ),
      )
    }

    // Scenario edits without a version: each must get its own, higher than the lane's previous one.
    const edits: {
      scenario: number
      lane: number
      message: string
      status: number
      version: number
    }[] = []
    for (let s = 0; s < SCENARIOS; s++) {
      for (let l = 0; l < EDIT_LANES_PER_SCENARIO; l++) {
        lanes.push(
          Array.from({ length: EDITS_PER_LANE }, (_, k) => async () => {
            const message = `scenario ${s} lane ${l} edit ${k}`
            const answer = await call('PUT', `/tracking-scenarios/v1/${scenarioIds[s]}`, {
              scenario: { name: `Race ${s}`, description: message },
              message,
            })
            edits.push({
              scenario: s,
              lane: l,
              message,
              status: answer.status,
              version: answer.body?.data?.[0]?.version ?? -1,
            })
          }),
        )
      }
    }

    // Events (good and bad pixels, tp2 pairs) with a unique marker each, and resets among them.
    const events: SentEvent[] = []
    const resets: { sent: number; answered: number; status: number }[] = []
    let markers = 0
    const nextEvent = (isBad: boolean): SentEvent => {
      const event = {
        marker: `race${String(++markers).padStart(4, '0')}x`,
        isBad,
        sent: 0,
        answered: 0,
        status: 0,
      }
      events.push(event)
      return event
    }
    const timed = async (sentEvents: SentEvent[], send: () => Promise<JsonResponse>) => {
      const sent = clock.tick()
      const { status } = await send()
      const answered = clock.tick()
      for (const event of sentEvents) Object.assign(event, { sent, answered, status })
    }
    for (let i = 0; i < EVENT_LANES; i++) {
      lanes.push(
        Array.from({ length: EVENT_OPS_PER_LANE }, (_, j) => async () => {
          if (i % 4 === 0 && j === 1 + (i % 3)) {
            const sent = clock.tick()
            const { status } = await collect('/local/reset')
            resets.push({ sent, answered: clock.tick(), status })
          } else if ((i + j) % 3 === 0) {
            const pair = [nextEvent(false), nextEvent(true)]
            const body = {
              schema: `iglu:${SP}/payload_data/jsonschema/1-0-4`,
              data: pair.map((e) => pagePing(e.marker, e.isBad)),
            }
            await timed(pair, () => collect(`/${SP}/tp2`, { method: 'POST', body }))
          } else {
            const event = nextEvent((i + j) % 3 === 2)
            await timed([event], () =>
              collect(`/i?${new URLSearchParams(pagePing(event.marker, event.isBad)).toString()}`),
            )
          }
        }),
      )
    }

    await Promise.all(
      lanes.map(async (lane) => {
        for (const step of lane) await step()
      }),
    )
    expect(requests).toBe(EXPECTED_REQUESTS)

    // 1. Deployments: every chained one acknowledged; racers either the same or refused for order; each version once, in order.
    expect(chainAnswers.map((a) => [a.status, a.body.success])).toEqual(
      chainAnswers.map(() => [201, true]),
    )
    for (const answer of racerAnswers) {
      if (answer.status !== 201)
        expect([answer.status, answer.body.code]).toEqual([
          409,
          expect.stringMatching(/^(NOT_VALIDATED|VERSION_GAP)$/),
        ])
    }
    for (const name of SCHEMAS) {
      const history = (
        await admin.call('GET', `/data-structures/v1/${hashes.get(name)}/deployments?env=DEV`)
      ).body as { version: string }[]
      const oldestFirst = history.map((d) => d.version).reverse()
      expect(oldestFirst).toEqual(VERSIONS)
      for (let k = 1; k < oldestFirst.length; k++)
        expect(
          compareSchemaVer(parseSchemaVer(oldestFirst[k]!)!, parseSchemaVer(oldestFirst[k - 1]!)!),
        ).toBeGreaterThan(0)
      const structure = (await admin.call('GET', `/data-structures/v1/${hashes.get(name)}`))
        .body as { deployments: { env: string; version: string }[] }
      expect(structure.deployments.find((d) => d.env === 'DEV')?.version).toBe(VERSIONS.at(-1))
    }

    // 2. Scenario edits: all acknowledged, versions 1..n without gaps or repeats, rising per lane, each one in the history.
    expect(edits.filter((e) => e.status !== 200)).toEqual([])
    const perScenario = EDIT_LANES_PER_SCENARIO * EDITS_PER_LANE
    for (let s = 0; s < SCENARIOS; s++) {
      const mine = edits.filter((e) => e.scenario === s)
      expect(mine.map((e) => e.version).sort((a, b) => a - b)).toEqual(
        Array.from({ length: perScenario }, (_, k) => k + 1),
      )
      for (let l = 0; l < EDIT_LANES_PER_SCENARIO; l++) {
        const versions = mine.filter((e) => e.lane === l).map((e) => e.version)
        expect(versions).toEqual([...versions].sort((a, b) => a - b))
      }
      const stored = (
        await admin.call('GET', `/tracking-scenarios/v1/${scenarioIds[s]}?withHistory=true`)
      ).body
      const history = stored.includes as { version: number; message: string }[]
      expect(history.map((r) => r.version).sort((a, b) => a - b)).toEqual(
        Array.from({ length: perScenario + 1 }, (_, k) => k),
      )
      const messageAt = new Map(history.map((r) => [r.version, r.message]))
      for (const edit of mine) expect(messageAt.get(edit.version)).toBe(edit.message)
      expect(stored.data[0]).toMatchObject({
        version: perScenario,
        description: mine.find((e) => e.version === perScenario)?.message,
      })
    }

    // 3. Events: each once at most, none foreign; those sent after every reset answered are there, those
    //    answered before a reset was sent are gone; the counts equal the lists.
    expect(
      [...events.map((e) => e.status), ...resets.map((r) => r.status)].filter(
        (status) => status !== 200,
      ),
    ).toEqual([])
    const good = (await requestJson(`${server.baseUrl}/local/good`)).body as {
      event: { app_id: string | null }
    }[]
    const bad = (await requestJson(`${server.baseUrl}/local/bad`)).body as { errors: string[] }[]
    const counts = (await requestJson(`${server.baseUrl}/local/all`)).body as {
      total: number
      good: number
      bad: number
    }
    expect(counts).toEqual({ total: good.length + bad.length, good: good.length, bad: bad.length })
    const byMarker = new Map(events.map((e) => [e.marker, e]))
    const listed = [
      ...good.map((e) => ({ marker: markerOfGood(e), isBad: false })),
      ...bad.map((e) => ({ marker: markerOfBad(e), isBad: true })),
    ]
    expect(
      listed.filter((e) => e.marker === null || byMarker.get(e.marker)?.isBad !== e.isBad),
    ).toEqual([])
    const present = new Set(listed.map((e) => e.marker))
    expect(present.size).toBe(listed.length)
    const lastResetAnswered = Math.max(0, ...resets.map((r) => r.answered))
    const lastResetSent = Math.max(0, ...resets.map((r) => r.sent))
    const mustBeThere = events.filter((e) => e.sent > lastResetAnswered).map((e) => e.marker)
    const mustBeGone = events.filter((e) => e.answered < lastResetSent).map((e) => e.marker)
    expect(mustBeThere.filter((marker) => !present.has(marker))).toEqual([])
    expect(mustBeGone.filter((marker) => present.has(marker))).toEqual([])
    console.info(
      `concurrency on ${backend.name}: ${edits.length} scenario edits, ${events.length} events and ${resets.length} resets among the concurrent requests; ${mustBeThere.length} events had to be kept and were, ${mustBeGone.length} had to be gone and were`,
    )

    // 4. Quiet again: after one more reset the counts follow the events one by one, and the store holds no half write.
    await requestJson(`${server.baseUrl}/local/reset`)
    for (const isBad of [false, true, false])
      await requestJson(
        `${server.baseUrl}/i?${new URLSearchParams(pagePing(`quiet${String(isBad)}`, isBad)).toString()}`,
      )
    expect((await requestJson(`${server.baseUrl}/local/all`)).body).toEqual({
      total: 3,
      good: 2,
      bad: 1,
    })
    const broken = await halfWrittenRows(server.app.store.db)
    expect(broken).toEqual(Object.fromEntries(Object.keys(broken).map((rule) => [rule, []])))
  })
})
