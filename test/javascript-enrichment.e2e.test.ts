import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { buildPageView, newTracker } from '@snowplow/node-tracker'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFloe, type FloeProcess } from './support/floe-process.js'
import { pollUntil } from './support/poll-until.js'

// Issue 32, item 7, end to end: `floe start --enrichments DIR` with Micro's drop-all script and a
// script that adds an entity, events from the real @snowplow/node-tracker, and the built server's
// worker threads (dist/) running the scripts.

describe('JavaScript enrichments in floe start, with the node tracker', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'floe-js-e2e-'))
  let floe: FloeProcess

  beforeAll(async () => {
    const enrichments = path.join(dir, 'enrichments')
    mkdirSync(enrichments)
    writeFileSync(
      path.join(enrichments, 'drop-all.js'),
      "function process(event) { if (event.getApp_id() === 'drop-all') event.drop(); return [] }",
    )
    writeFileSync(
      path.join(enrichments, 'tag.js'),
      `function process(event) {
        event.setUser_id('tagged-' + event.getApp_id())
        return null
      }`,
    )
    floe = await startFloe(['--enrichments', enrichments], {
      FLOE_DATA_DIR: path.join(dir, 'data'),
    })
  })
  afterAll(async () => {
    await floe?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('drops every event of app_id drop-all and lets a script change the others', async () => {
    const url = new URL(floe.baseUrl)
    for (const appId of ['drop-all', 'shop', 'drop-all']) {
      const tracker = newTracker(
        { namespace: appId, appId },
        { endpoint: url.hostname, port: Number(url.port), protocol: 'http', bufferSize: 1 },
      )
      tracker.track(buildPageView({ pageUrl: 'http://shop.test/' }))
      await tracker.flush()
    }
    const good = await pollUntil(
      async () =>
        (await (await fetch(`${floe.baseUrl}/micro/good`)).json()) as {
          event: { app_id: string; user_id: string }
        }[],
      (events) => events.length >= 1,
      'the shop event',
    )
    expect(good.map((e) => [e.event.app_id, e.event.user_id])).toEqual([['shop', 'tagged-shop']])
    expect(await (await fetch(`${floe.baseUrl}/micro/all`)).json()).toEqual({
      total: 1,
      good: 1,
      bad: 0,
    })
  })
})
