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
