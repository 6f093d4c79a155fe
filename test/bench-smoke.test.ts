import { execFileSync } from 'node:child_process'
import { expect, it } from 'vitest'

it('the compatibility benchmark runs at a tiny size and reports its figures', () => {
  const output = execFileSync(process.execPath, ['bench/compatibility.mjs', '--limit', '5'], { encoding: 'utf8' })
  const report = JSON.parse(output.trim().split('\n').pop()!)
  expect(report).toMatchObject({ scenario: 'compatibility', pairs: 5 })
  expect(report.decidedShare).toBeGreaterThanOrEqual(0)
  expect(report.medianMs).toBeGreaterThan(0)
  expect(report.baselineMedianMs).toBeGreaterThan(0)
})

it('the memory flood benchmark runs at a tiny size, keeping exactly the newest events', () => {
  const output = execFileSync(process.execPath, ['bench/memory-flood.mjs', '--events', '3000', '--max-events', '500', '--batch', '50'], { encoding: 'utf8' })
  const report = JSON.parse(output.trim().split('\n').pop()!)
  expect(report).toMatchObject({ scenario: 'memory-flood', events: 3000, maxEvents: 500, countsCorrect: true, evictionCorrect: true })
  expect(report.rssEndMb).toBeGreaterThan(0)
}, 120_000)
