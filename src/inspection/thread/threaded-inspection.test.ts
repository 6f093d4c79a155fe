import { Writable } from 'node:stream'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { testConfig } from '../../../test/support/test-config.js'
import { schemaKeyUri, type SchemaKey } from '../../iglu/index.js'
import type { CollectorRequest } from '../collector/collector-request.js'
import type { Arrival } from '../inspection.service.js'
import { openThreadedInspection, type ThreadedInspection } from './threaded-inspection.js'

const SEARCH = 'iglu:com.acme/search/jsonschema/1-0-0'
const searchSchema = {
  $schema:
    'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#',
  self: { vendor: 'com.acme', name: 'search', format: 'jsonschema', version: '1-0-0' },
  type: 'object',
  properties: { term: { type: 'string', maxLength: 5 } },
  required: ['term'],
  additionalProperties: false,
}

/** Floe's registry as the main thread holds it: com.acme/search deployed, asked for how often. */
const asked: string[] = []
const registry = {
  lookup: async (key: SchemaKey) => {
    asked.push(schemaKeyUri(key))
    return schemaKeyUri(key) === SEARCH ? structuredClone(searchSchema) : null
  },
  peek: () => undefined,
  keptUntil: () => Date.now() + 60_000,
}

/** A tp2 request of self-describing search events with these terms. */
function searches(...terms: string[]): CollectorRequest {
  const events = terms.map((term, i) => ({
    e: 'ue',
    p: 'web',
    tv: 'js-3.0.0',
    aid: 'threaded',
    eid: `6f0a1b2c-3d4e-4f50-8a6b-7c8d9e0f1a${String(i).padStart(2, '0')}`,
    dtm: '1764583200000',
    ue_pr: JSON.stringify({
      schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
      data: { schema: SEARCH, data: { term } },
    }),
  }))
  return {
    api: { vendor: 'com.snowplowanalytics.snowplow', version: 'tp2' },
    method: 'POST',
    rawQuery: '',
    headers: { 'content-type': 'application/json; charset=UTF-8', 'user-agent': 'test' },
    remoteAddress: '127.0.0.1',
    body: JSON.stringify({
      schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
      data: events,
    }),
    timestamp: Date.parse('2026-12-01T10:00:00Z'),
    collectorName: 'floe-test',
    nuidCookie: 'sp',
  }
}

describe('event inspection in a thread of its own', () => {
  let inspection: ThreadedInspection
  beforeAll(async () => {
    inspection = await openThreadedInspection(testConfig().inspection, {
      registrySchemas: registry,
      now: Date.now,
      log: pino({ level: 'silent' }),
      logChoice: { fd: 2, pretty: false, colorize: false },
      processor: { artifact: 'floe', version: 'test' },
      stdout: new Writable({ write: (_chunk, _encoding, done) => done() }),
    })
  })
  afterAll(async () => inspection?.close())

  it('processes collector requests there, validating against the registry asked across, and reads the events back', async () => {
    const { service } = inspection
    const collected = await service.collect(searches('shoes', 'a term too long'))
    expect(collected).toMatchObject({ anonymous: false, hadNuidCookie: false })
    expect(typeof collected.nuid).toBe('string')
    await service.settled()
    const good = await service.store.findGood()
    expect(good.map((event) => event.event.unstruct_event)).toEqual([
      {
        schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
        data: { schema: SEARCH, data: { term: 'shoes' } },
      },
    ])
    expect(good[0]?.event.network_userid).toBe(collected.nuid)
    const bad = await service.store.findBad()
    expect(bad).toHaveLength(1)
    expect(JSON.stringify(bad[0])).toContain('maxLength')
    expect(await service.store.counts()).toEqual({ total: 2, good: 1, bad: 1 })
    expect(asked).toContain(SEARCH)
  })

  it('tells subscribers of each stored event, and resets for those listening', async () => {
    const { service } = inspection
    const arrivals: Arrival[] = []
    let resets = 0
    // A subscriber that throws is said in the log; the others are told all the same.
    const unsubscribeFailing = service.subscribe(() => {
      throw new Error('a failing subscriber')
    })
    const unsubscribe = service.subscribe((arrival) => arrivals.push(arrival))
    const stopResets = service.onReset(() => resets++)
    await service.collect(searches('boots'))
    await service.settled()
    await expect.poll(() => arrivals.map((a) => a.kind)).toEqual(['good'])
    unsubscribeFailing()
    unsubscribe()
    await service.reset()
    stopResets()
    expect(resets).toBe(1)
    expect(await service.store.counts()).toEqual({ total: 0, good: 0, bad: 0 })
  })

  it('starts a new thread when its own stops: the events kept there are lost, subscribers are told of the new ones', async () => {
    const { service } = inspection
    const arrivals: Arrival[] = []
    const unsubscribe = service.subscribe((arrival) => arrivals.push(arrival))
    await service.collect(searches('pre'))
    await service.settled()
    expect(await service.store.counts()).toEqual({ total: 1, good: 1, bad: 0 })
    await inspection.stopThreadAbruptly()
    expect(await service.store.counts()).toEqual({ total: 0, good: 0, bad: 0 })
    await service.collect(searches('post', 'way too long'))
    await service.settled()
    expect(await service.store.counts()).toEqual({ total: 2, good: 1, bad: 1 })
    const good = await service.store.findGood()
    expect(JSON.stringify(good[0]?.event.unstruct_event)).toContain('"post"')
    await expect
      .poll(() => arrivals.map((arrival) => arrival.kind))
      .toEqual(['good', 'good', 'bad'])
    unsubscribe()
  })
})

describe('event inspection in a thread of its own, embedded with a log stream', () => {
  it("writes the thread's log lines (the event log) to the server's log stream", async () => {
    const lines: string[] = []
    const logStream = new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        lines.push(chunk.toString('utf8'))
        done()
      },
    })
    const inspection = await openThreadedInspection(testConfig().inspection, {
      registrySchemas: registry,
      now: Date.now,
      log: pino({ level: 'info' }, logStream),
      logStream,
      logChoice: { fd: 2, pretty: false, colorize: false },
      processor: { artifact: 'floe', version: 'test' },
      stdout: new Writable({ write: (_chunk, _encoding, done) => done() }),
    })
    try {
      await inspection.service.collect(searches('logs'))
      await inspection.service.settled()
      await expect.poll(() => lines.filter((line) => line.includes('GOOD id:')).length).toBe(1)
      const line = JSON.parse(lines.find((text) => text.includes('GOOD id:'))!) as { msg: string }
      expect(line.msg).toContain('app_id:threaded type:unstruct (iglu:com.acme/search/')
    } finally {
      await inspection.close()
    }
  })
})
