import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  editVersionProblems,
  lastPublishedVersion,
  nextVersion,
  statusProblems,
  versionsDiscardedByPublishing,
  type KeptVersion,
} from './scenario-versioning.js'

const kept = (...entries: [number, KeptVersion['status']][]): KeptVersion[] =>
  entries.map(([version, status]) => ({ version, status }))

describe('scenario versioning rules', () => {
  it('accepts the three statuses and names anything else', () => {
    expect(['draft', 'published', 'deprecated'].flatMap((s) => statusProblems(s))).toEqual([])
    expect(statusProblems('archived')).toEqual([
      expect.objectContaining({ code: 'InvalidStatus', source: 'status' }),
    ])
  })

  it('takes the version after every kept one when none is given', () => {
    expect(nextVersion(undefined, [])).toBe(0)
    expect(nextVersion(undefined, kept([0, 'draft'], [4, 'published'], [2, 'draft']))).toBe(5)
    expect(nextVersion(9, kept([0, 'draft']))).toBe(9)
  })

  it('refuses used versions and versions at or below the last published one', () => {
    const history = kept([0, 'draft'], [2, 'published'], [3, 'draft'])
    expect(lastPublishedVersion(history)).toBe(2)
    expect(editVersionProblems(3, history)[0]?.title).toMatch(/already exists/)
    expect(editVersionProblems(1, history)[0]?.title).toMatch(/last published version, 2/)
    expect(editVersionProblems(-1, history)[0]?.code).toBe('InvalidVersion')
    expect(editVersionProblems(4, history)).toEqual([])
    expect(editVersionProblems(undefined, history)).toEqual([])
    // The next version of a scenario at the maximum would not fit its column: refused, not a 500.
    expect(editVersionProblems(undefined, kept([2_147_483_647, 'draft']))[0]).toMatchObject({
      type: 'Error',
      code: 'InvalidVersion',
      source: 'version',
    })
    expect(editVersionProblems(undefined, kept([2_147_483_646, 'draft']))).toEqual([])
  })

  it('discards only unpublished versions strictly between the previous publication and the new one', () => {
    const history = kept(
      [0, 'draft'],
      [1, 'published'],
      [2, 'draft'],
      [3, 'deprecated'],
      [5, 'draft'],
    )
    expect(versionsDiscardedByPublishing(4, 'published', history)).toEqual([2, 3])
    expect(versionsDiscardedByPublishing(4, 'draft', history)).toEqual([])
    expect(versionsDiscardedByPublishing(1, 'published', kept([0, 'draft']))).toEqual([])
  })

  it('never discards a published version, the new one, or anything outside the window', () => {
    const status = fc.constantFrom<KeptVersion['status']>('draft', 'published', 'deprecated')
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ version: fc.nat(50), status }), {
          selector: (k) => k.version,
          maxLength: 20,
        }),
        fc.nat(60),
        (history, version) => {
          const discarded = versionsDiscardedByPublishing(version, 'published', history)
          const previous = lastPublishedVersion(history.filter((k) => k.version < version))
          for (const v of discarded) {
            const entry = history.find((k) => k.version === v)
            expect(entry?.status).not.toBe('published')
            expect(v).toBeLessThan(version)
            expect(previous).not.toBeNull()
            expect(v).toBeGreaterThan(previous ?? Infinity)
          }
        },
      ),
    )
  })
})
