import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

describe('doubles in stored events, as Micro prints them', () => {
  let floe: TestApp
  beforeAll(async () => {
    floe = await startTestApp(testConfig())
  })
  afterAll(async () => floe?.close())

  it('writes se_value and the transaction totals as Java does: 5.0, 1.0E-7', async () => {
    const structured = (value: string, appId: string) =>
      fetch(`${floe.baseUrl}/i?e=se&p=web&tv=t&se_ca=c&se_ac=a&aid=${appId}&se_va=${value}`)
    await structured('5', 'whole')
    await structured('0.0000001', 'tiny')
    await fetch(`${floe.baseUrl}/i?e=tr&p=web&tv=t&aid=order&tr_id=o1&tr_tt=12345678&tr_tx=0.5`)
    const text = await (await fetch(`${floe.baseUrl}/micro/good`)).text()
    expect(text).toContain('"se_value":5.0')
    expect(text).toContain('"se_value":1.0E-7')
    expect(text).toContain('"tr_total":1.2345678E7')
    expect(text).toContain('"tr_tax":0.5')
    // Still JSON that any parser reads, with the same numbers.
    const events = JSON.parse(text) as { event: Record<string, unknown> }[]
    expect(events.map((e) => [e.event.app_id, e.event.se_value ?? e.event.tr_total])).toEqual([
      ['order', 12345678],
      ['tiny', 1e-7],
      ['whole', 5],
    ])
  })
})
