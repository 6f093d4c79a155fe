import { sql } from 'kysely'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Config } from '../src/config/config.js'
import { requestJson } from './support/api-client.js'
import { embeddedEventsDatabase, keepingEvents, postgresStorage } from './support/storage-modes.js'
import { FakeClock, startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { backends, type TestDatabase } from './support/test-databases.js'

/** What the inspection API answers, as raw text: a restart must not change a byte of it. */
async function answers(server: TestApp) {
  const text = async (path: string, body?: unknown) =>
    (
      await fetch(
        `${server.baseUrl}${path}`,
        body === undefined
          ? {}
          : {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(body),
            },
      )
    ).text()
  return {
    all: await text('/local/all'),
    good: await text('/local/good'),
    bad: await text('/local/bad'),
    events: await text('/local/events', { filters: [], page: 1, pageSize: 50 }),
  }
}

const appIds = async (server: TestApp) =>
  ((await requestJson(`${server.baseUrl}/local/good`)).body as { event: { app_id: string } }[]).map(
    (e) => e.event.app_id,
  )

describe.each(backends)('--storage postgres on $name', (backend) => {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })
  async function fresh(): Promise<TestDatabase> {
    const database = await backend.create({ onDisk: true })
    cleanups.push(() => database.drop())
    return database
  }
  async function start(config: Config, clock: FakeClock): Promise<TestApp> {
    const server = await startTestApp(config, { clock })
    cleanups.push(() => server.close())
    return server
  }

  it('keeps events across a restart, answering byte for byte the same, until the TTL removes them', async () => {
    const database = await fresh()
    const clock = new FakeClock(new Date('2026-01-01T00:00:00Z'))
    const config = testConfig({
      db: keepingEvents(database.config),
      inspection: { storage: postgresStorage() },
    })

    // 1. One instance collects a good event, and a broken one (a bad event plus an incomplete one).
    const first = await start(config, clock)
    await fetch(`${first.baseUrl}/i?e=pp&p=web&aid=kept`)
    await fetch(`${first.baseUrl}/i?e=pp&p=web&aid=broken&eid=not-a-uuid`)
    const before = await answers(first)
    expect(before.all).toBe('{"total":2,"good":1,"bad":1}')
    expect(JSON.parse(before.events).totalItems).toBe(2)
    await first.close()

    // 2. Restarted a minute later, it answers the same.
    clock.advanceSeconds(60)
    const second = await start(config, clock)
    expect(await answers(second)).toEqual(before)
    await second.close()

    // 3. A day later, the cleanup at start-up has removed them; new events are kept.
    clock.advanceSeconds(24 * 3600)
    const third = await start(config, clock)
    expect((await requestJson(`${third.baseUrl}/local/all`)).body).toEqual({
      total: 0,
      good: 0,
      bad: 0,
    })
    await fetch(`${third.baseUrl}/i?e=pp&p=web&aid=next-day`)
    expect(await appIds(third)).toEqual(['next-day'])
    // PGlite runs no autovacuum: the cleanup that deleted them vacuumed the table, so that their
    // space is written again. A server's autovacuum does that on its own.
    const { rows } = await sql<{ vacuums: string }>`select vacuum_count::text as vacuums
      from pg_stat_user_tables where relname = 'inspected_events'`.execute(third.app.store.db)
    expect(Number(rows[0]?.vacuums) > 0).toBe(backend.name === 'pglite')
  })

  it.runIf(backend.name === 'postgres')(
    "lets instances on one database see each other's events, and reset them all",
    async () => {
      const database = await fresh()
      const clock = new FakeClock(new Date('2026-01-01T00:00:00Z'))
      const config = testConfig({
        db: keepingEvents(database.config),
        inspection: { storage: postgresStorage() },
      })
      const [a, b] = [await start(config, clock), await start(config, clock)]
      await fetch(`${a.baseUrl}/i?e=pp&p=web&aid=via-a`)
      const payload = {
        schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
        data: [
          { e: 'pp', p: 'web', tv: 't', aid: 'via-b-1' },
          { e: 'pp', p: 'web', tv: 't', aid: 'via-b-2' },
        ],
      }
      await fetch(`${b.baseUrl}/com.snowplowanalytics.snowplow/tp2`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(payload),
      })
      await fetch(`${b.baseUrl}/com.snowplowanalytics.snowplow/tp2`)
      for (const server of [a, b]) {
        expect(await appIds(server)).toEqual(['via-b-2', 'via-b-1', 'via-a'])
        expect((await requestJson(`${server.baseUrl}/local/all`)).body).toEqual({
          total: 4,
          good: 3,
          bad: 1,
        })
      }
      expect(
        (await requestJson(`${a.baseUrl}/local/good`, { method: 'POST', body: { limit: 1 } })).body,
      ).toHaveLength(1)
      expect((await requestJson(`${b.baseUrl}/local/reset`)).body).toEqual({
        total: 0,
        good: 0,
        bad: 0,
      })
      expect((await requestJson(`${a.baseUrl}/local/all`)).body).toEqual({
        total: 0,
        good: 0,
        bad: 0,
      })
    },
  )
})

describe('--storage postgres when the database refuses a write', () => {
  it('answers 500, so that the tracker sends the payload again, and keeps none of its events', async () => {
    const database = await embeddedEventsDatabase()
    const server = await startTestApp(
      testConfig({ db: database.config, inspection: { storage: postgresStorage() } }),
    )
    const db = server.app.store.db
    try {
      await sql`create function refuse_poison() returns trigger language plpgsql as $$
        begin if new.body like '%poison%' then raise exception 'poisoned row'; end if; return new; end $$`.execute(
        db,
      )
      await sql`create trigger refuse_poison before insert on inspected_events for each row execute function refuse_poison()`.execute(
        db,
      )
      const payload = JSON.stringify({
        schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
        data: [
          { e: 'pp', p: 'web', tv: 't', aid: 'first' },
          { e: 'pp', p: 'web', tv: 't', aid: 'poison' },
        ],
      })
      const send = () =>
        fetch(`${server.baseUrl}/com.snowplowanalytics.snowplow/tp2`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: payload,
        })
      expect((await send()).status).toBe(500)
      expect((await requestJson(`${server.baseUrl}/local/all`)).body).toEqual({
        total: 0,
        good: 0,
        bad: 0,
      })
      await sql`drop trigger refuse_poison on inspected_events`.execute(db)
      expect((await send()).status).toBe(200)
      expect(await appIds(server)).toEqual(['poison', 'first'])
    } finally {
      await server.close()
      await database.drop()
    }
  })
})

describe('--storage postgres under a flood of large events', () => {
  it('keeps each list within its size bound, cleaning up without waiting for the timer', async () => {
    const maxBytesPerList = 2 ** 20
    const database = await embeddedEventsDatabase()
    const server = await startTestApp(
      testConfig({
        db: database.config,
        inspection: {
          storage: { ...postgresStorage(), cleanupIntervalSeconds: 3600, maxBytesPerList },
        },
      }),
    )
    const db = server.app.store.db
    const badBytes = async () => {
      const { rows } = await sql<{
        bytes: string | null
        count: string
      }>`select sum(octet_length(body)) as bytes, count(*) as count from inspected_events where kind = 'bad'`.execute(
        db,
      )
      return { bytes: Number(rows[0]?.bytes ?? 0), count: Number(rows[0]?.count ?? 0) }
    }
    try {
      // 20 unreadable tp2 bodies of 100 kB, each kept twice in its bad event (the payload and the bad row): ~4 MB written in all.
      for (let i = 0; i < 20; i++) {
        const body = `{"broken ${String(i).padStart(2, '0')}": "${'x'.repeat(100_000)}"`
        expect(
          (
            await fetch(`${server.baseUrl}/com.snowplowanalytics.snowplow/tp2`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body,
            })
          ).status,
        ).toBe(200)
      }
      await vi.waitFor(
        async () => expect((await badBytes()).bytes).toBeLessThanOrEqual(maxBytesPerList),
        { timeout: 10_000, interval: 50 },
      )
      const kept = await badBytes()
      expect(kept.bytes).toBeLessThanOrEqual(maxBytesPerList)
      expect(kept.count).toBeGreaterThan(0)
      // The newest are the ones kept.
      const [newest] = (await requestJson(`${server.baseUrl}/local/bad`)).body as {
        collectorPayload: { body: string }
      }[]
      expect(newest?.collectorPayload.body).toContain('"broken 19"')
    } finally {
      await server.close()
      await database.drop()
    }
  })
})
