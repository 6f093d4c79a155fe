import { describe, expect, it } from 'vitest'
import { createInspectionService } from './inspection.service.js'
import type { EventOutput } from './event-output.js'
import { MemoryEventStore } from './store/memory-event-store.js'
import type { EventBatch } from './store/event-store.js'
import { buildResolver } from './resolver/build-resolver.js'
import { createSchemaValidation } from './resolver/schema-validation.js'
import { OFFLINE_RESOLVER } from '../../test/support/test-config.js'

/** The memory store, declared as a store whose writes can fail (as a database's can). */
class StoreWhoseWritesCanFail extends MemoryEventStore {
  override readonly writesCanFail = true
  /** Writes are refused once set (a database gone). */
  refusing = false

  override keep(batch: EventBatch): Promise<void> {
    return this.refusing ? Promise.reject(new Error('refused')) : Promise.resolve(super.keep(batch))
  }
}

/** A store whose writes wait until released, one after the other, in the order they were handed over. */
class StoreWritingInCallOrder extends MemoryEventStore {
  override readonly writesCanFail = true
  readonly keepsCallOrder = true
  readonly handedOver: string[] = []
  private last: Promise<void> = Promise.resolve()
  private readonly releases: (() => void)[] = []

  override keep(batch: EventBatch): Promise<void> {
    this.handedOver.push(...batch.good.map((event) => String(event.event.app_id)))
    const released = new Promise<void>((resolve) => this.releases.push(resolve))
    this.last = this.last.then(() => released).then(() => super.keep(batch))
    return this.last
  }

  releaseAll(): void {
    for (const release of this.releases.splice(0)) release()
  }
}

/** A resolver whose one repository knows no schema, answering when `lookup` resolves. */
function resolverOf(lookup: () => Promise<null>) {
  const registry = {
    name: 'slow',
    priority: 0,
    vendorPrefixes: [],
    kind: 'registry' as const,
    cacheable: false,
    lookup,
  }
  return buildResolver(OFFLINE_RESOLVER, registry, Date.now)
}

/** What every service of these tests shares: the store, and a resolver that knows no schema. */
function serviceDeps(
  store: MemoryEventStore,
  resolver: ReturnType<typeof resolverOf> = resolverOf(async () => null),
) {
  return {
    store,
    iglu: createSchemaValidation(resolver),
    resolver,
    processor: { artifact: 'floe', version: 'test' },
    now: Date.now,
    maxPayloadBytes: 1_000_000,
  }
}

/** A service whose repository answers only once `answered` resolves (a slow schema lookup). */
function inspectionOf(
  store: MemoryEventStore,
  options: {
    answered?: Promise<void>
    maxPendingPayloads?: number
    onSubscriberError?: (error: unknown) => void
    output?: EventOutput
  } = {},
) {
  const resolver = resolverOf(async () => {
    await options.answered
    return null
  })
  return createInspectionService({
    ...serviceDeps(store, resolver),
    maxPendingPayloads: options.maxPendingPayloads,
    output: options.output ?? null,
    ...(options.onSubscriberError === undefined
      ? {}
      : { onSubscriberError: options.onSubscriberError }),
  })
}

const pageView = (aid: string) => ({
  api: { vendor: 'com.snowplowanalytics.snowplow', version: 'tp1' },
  method: 'GET',
  rawQuery: `e=pv&p=web&tv=t&aid=${aid}`,
  headers: { host: 'localhost' },
  remoteAddress: '127.0.0.1',
  body: null,
  timestamp: Date.now(),
  collectorName: 'test',
  nuidCookie: 'sp',
})
const appIds = async (store: MemoryEventStore) =>
  (await store.findGood()).map((event) => event.event.app_id)

describe('inspection service: when a collector request is answered', () => {
  it('answers first and stores right after with a store whose writes cannot fail; settled() is the read barrier', async () => {
    const store = new MemoryEventStore(100)
    const inspection = inspectionOf(store)
    for (const aid of ['a', 'b', 'c'])
      expect(inspection.collect(pageView(aid))).not.toBeInstanceOf(Promise)
    await inspection.collect({ ...pageView('x'), rawQuery: '' })
    expect(await store.counts()).toEqual({ total: 0, good: 0, bad: 0 })
    expect(inspection.settled()).not.toBeNull()
    await inspection.settled()
    expect(await store.counts()).toEqual({ total: 4, good: 3, bad: 1 })
    expect(await appIds(store)).toEqual(['c', 'b', 'a'])
    expect(inspection.settled()).toBeNull()
  })

  it('stores before answering with a store whose writes can fail, so that a failed write fails the request', async () => {
    const store = new StoreWhoseWritesCanFail(100)
    const inspection = inspectionOf(store)
    await inspection.collect(pageView('a'))
    expect(inspection.settled()).toBeNull()
    expect(await appIds(store)).toEqual(['a'])
    store.refusing = true
    await expect(inspection.collect(pageView('b'))).rejects.toThrow('refused')
  })

  it('hands a store that writes in call order each request at once, not after the write before it', async () => {
    const store = new StoreWritingInCallOrder(100)
    const inspection = inspectionOf(store)
    const answers = ['a', 'b', 'c'].map((aid) => inspection.collect(pageView(aid)))
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve))
    // None is stored yet, and every one has been handed over, in the order they arrived.
    expect(store.handedOver).toEqual(['a', 'b', 'c'])
    expect(await appIds(store)).toEqual([])
    store.releaseAll()
    for (const answer of answers) await answer
    expect(await appIds(store)).toEqual(['c', 'b', 'a'])
  })

  it('answers only once stored while too many answered payloads wait for slow schema lookups', async () => {
    let open: () => void = () => undefined
    const answered = new Promise<void>((resolve) => (open = resolve))
    const store = new MemoryEventStore(100)
    const inspection = inspectionOf(store, { answered, maxPendingPayloads: 1 })
    const unknownEvent = (aid: string) => ({
      ...pageView(aid),
      rawQuery: `e=ue&p=web&tv=t&aid=${aid}&ue_pr=${encodeURIComponent(JSON.stringify({ schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0', data: { schema: `iglu:com.acme/${aid}/jsonschema/1-0-0`, data: {} } }))}`,
    })
    await inspection.collect(unknownEvent('first'))
    let secondAnswered = false
    const secondAnswer = inspection.collect(unknownEvent('second'))
    expect(secondAnswer).toBeInstanceOf(Promise)
    const second = Promise.resolve(secondAnswer).then(() => (secondAnswered = true))
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve))
    expect(secondAnswered).toBe(false)
    open()
    await second
    // Both are stored (as bad events: no repository knows their schemas) before the second answer.
    expect(await store.counts()).toEqual({ total: 2, good: 0, bad: 2 })
  })

  it('tells every subscriber and the outputs of each stored event, though a subscriber fails', async () => {
    const store = new MemoryEventStore(100)
    const errors: unknown[] = []
    const printed: unknown[] = []
    const inspection = inspectionOf(store, {
      onSubscriberError: (error) => errors.push(error),
      output: {
        write: (events) => void printed.push(...events),
        bytesOnTheWay: 0,
        settled: () => Promise.resolve(),
        printing: () => null,
      } satisfies EventOutput,
    })
    const told: string[] = []
    inspection.subscribe(() => {
      throw new Error('subscriber broke')
    })
    inspection.subscribe((arrival) => told.push(arrival.kind))
    await inspection.collect(pageView('a'))
    await inspection.collect({ ...pageView('x'), rawQuery: '' })
    await inspection.settled()
    expect(told).toEqual(['good', 'bad'])
    expect(printed).toHaveLength(1)
    expect(errors).toEqual([new Error('subscriber broke'), new Error('subscriber broke')])
    expect(await store.counts()).toEqual({ total: 2, good: 1, bad: 1 })
  })

  it('answers at once, without a promise, when the events need not be stored first', async () => {
    const store = new MemoryEventStore(100)
    const inspection = inspectionOf(store)
    const answer = inspection.collect(pageView('a'))
    expect(answer).not.toBeInstanceOf(Promise)
    expect(answer).toEqual({ nuid: expect.any(String), anonymous: false, hadNuidCookie: false })
    await inspection.settled()
    expect(await appIds(store)).toEqual(['a'])
  })

  it('keeps a request ready at once after an earlier one still waiting for its schema', async () => {
    let open: () => void = () => undefined
    const answered = new Promise<void>((resolve) => (open = resolve))
    const store = new MemoryEventStore(100)
    const inspection = inspectionOf(store, { answered })
    const told: string[] = []
    inspection.subscribe((arrival) =>
      told.push(`${arrival.kind} ${arrival.kind === 'good' ? arrival.event.event.app_id : ''}`),
    )
    const unknownEvent = {
      ...pageView('first'),
      rawQuery: `e=se&p=web&tv=t&aid=first&cx=${Buffer.from(JSON.stringify({ schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0', data: [{ schema: 'iglu:com.acme/slow/jsonschema/1-0-0', data: {} }] })).toString('base64url')}`,
    }
    await inspection.collect(unknownEvent)
    await inspection.collect(pageView('second'))
    for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve))
    // The second is ready, but waits for the first to be kept.
    expect(told).toEqual([])
    open()
    await inspection.settled()
    expect(told).toEqual(['bad ', 'good second'])
  })

  it('gives the next request its turn when keeping an earlier one fails (a bug), and reports it', async () => {
    const store = new MemoryEventStore(100)
    const failures: unknown[] = []
    let writes = 0
    const inspection = createInspectionService({
      ...serviceDeps(store),
      onDeferredError: (error) => failures.push(error),
      output: {
        write: () => {
          if (writes++ === 0) throw new Error('output broke')
        },
        settled: () => Promise.resolve(),
        printing: () => null,
        bytesOnTheWay: 0,
      },
    })
    for (const aid of ['a', 'b', 'c']) await inspection.collect(pageView(aid))
    await inspection.settled()
    expect(failures).toEqual([new Error('output broke')])
    expect(await appIds(store)).toEqual(['c', 'b', 'a'])
    expect(writes).toBe(3)
  })
})
