import { describe, expect, it } from 'vitest'
import { yAxisWidth } from './event-timeline-axis.js'

/** A font whose every character is 7 px wide. */
const sevenEach = (label: string) => label.length * 7

describe("the timeline's y axis", () => {
  it('is wide enough for its longest label, its tick and the gap before it', () => {
    // "1,000" is 35 px here: with the 10 px tick and the 5 px gap it needs more than 40.
    expect(yAxisWidth(['0', '500', '1,000'], sevenEach)).toBeGreaterThanOrEqual(35 + 10 + 5)
    expect(yAxisWidth(['0', '2', '4'], sevenEach)).toBe(40)
    expect(yAxisWidth([], sevenEach)).toBe(40)
  })
})
