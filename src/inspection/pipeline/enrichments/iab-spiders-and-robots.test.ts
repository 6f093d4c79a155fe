import fc from 'fast-check'
import ipaddr from 'ipaddr.js'
import { describe, expect, it } from 'vitest'
import { FUZZ_SEED } from '../../../../test/support/fuzz-seed.js'
import { emptyEvent } from '../canonical-event.js'
import type { EnrichmentFailure } from './enrichment-failure.js'
import {
  createIabStep,
  excludeRecords,
  IAB_CONTEXT,
  iabRecords,
  iabVerdict,
  includeRecords,
  ipList,
  type IabLists,
} from './iab-spiders-and-robots.js'

// Small lists in the IAB files' format, written for these tests.
const INCLUDE = [
  '# pattern|active|start of string|inactive date',
  'mozilla|1|1|',
  'curl|0|0|01/31/2026',
  'retired|0|0|',
].join('\n')
const EXCLUDE = [
  '# pattern|active|exceptions|-|impact|start of string|inactive date',
  'bot|1|friendlybot, niceBOT|0|0|0|',
  'crawler|0||0|2|0|06/15/2026',
  'spider|1||0|1|1|',
  'oldscraper|0||0|1|0|',
  'badflag|1||0|9|0|',
].join('\r\n')
const IPS = ['192.0.2.7', '2001:db8:0:0:0:0:0:1', ' 198.51.100.0/24 ', '', '2001:db8:ff::/48'].join(
  '\n',
)

const lists = (over: Partial<IabLists> = {}): IabLists => ({
  ...ipList(IPS),
  include: includeRecords(INCLUDE),
  exclude: excludeRecords(EXCLUDE),
  customInclude: [],
  customExclude: [],
  ...over,
})
const JUNE_1 = Date.UTC(2026, 5, 1)
const JULY_1 = Date.UTC(2026, 6, 1)
const ip = (text: string) => ipaddr.process(text)
const verdict = (ua: string | null, address: string | null = null, at = JUNE_1, l = lists()) =>
  iabVerdict(l, ua, address === null ? null : ip(address), at)

describe('the IAB lists', () => {
  it('reads pipe-delimited records, skipping comments and blank lines, fields trimmed and unquoted', () => {
    expect(iabRecords('# note\n\n a |"b|c"| ""\r\n"say ""hi"""|x')).toEqual([
      // A quote after a space is text, as in Apache Commons CSV, which the IAB client reads with.
      ['a', 'b|c', '""'],
      ['say "hi"', 'x'],
    ])
    expect(includeRecords('Mozilla|1|1|02/03/2026')).toEqual([
      { pattern: 'mozilla', active: true, startOfString: true, inactiveAt: Date.UTC(2026, 1, 3) },
    ])
  })

  it(`reads any text without throwing, and checks any user agent against what it read (seed ${FUZZ_SEED})`, () => {
    const line = fc.array(fc.constantFrom('a', 'B', '|', '"', '#', ' ', '0', '1', '2', '/', ','), {
      maxLength: 30,
    })
    const file = fc.array(
      line.map((chars) => chars.join('')),
      { maxLength: 8 },
    )
    fc.assert(
      fc.property(file, fc.string({ maxLength: 40 }), (lines, ua) => {
        const text = lines.join('\n')
        const include = includeRecords(text)
        const exclude = excludeRecords(text)
        expect(include).toHaveLength(iabRecords(text).length)
        const l = lists({ include, exclude: exclude.filter((r) => /^[012]$/.test(r.impactFlag)) })
        expect(iabVerdict(l, ua, null, JUNE_1).reason).toMatch(/^(PASSED_ALL|FAILED_UA_\w+)$/)
      }),
      { seed: FUZZ_SEED, numRuns: 300 },
    )
  })

  it('refuses an IP range it cannot read, naming its line', () => {
    expect(() => ipList('1.2.3.4\n300.0.0.0/8')).toThrow(/line 2: "300.0.0.0\/8"/)
  })
})

describe('the IAB check', () => {
  it('passes a browser the include list knows and no exclude pattern matches', () => {
    expect(verdict('Mozilla/5.0 (X11; Linux x86_64) Firefox/120.0')).toEqual({
      spiderOrRobot: false,
      category: 'BROWSER',
      reason: 'PASSED_ALL',
      primaryImpact: 'NONE',
    })
  })

  it('fails a user agent no active include pattern matches (start of string, inactive dates)', () => {
    expect(verdict('Opera/9.80 mozilla').reason).toBe('FAILED_UA_INCLUDE')
    expect(verdict('curl/8.0', null, Date.UTC(2026, 0, 30)).reason).toBe('PASSED_ALL')
    expect(verdict('curl/8.0', null, Date.UTC(2026, 0, 31))).toEqual({
      spiderOrRobot: true,
      category: 'SPIDER_OR_ROBOT',
      reason: 'FAILED_UA_INCLUDE',
      primaryImpact: 'UNKNOWN',
    })
    expect(verdict('retired agent').reason).toBe('FAILED_UA_INCLUDE')
  })

  it('fails a known robot with its impact, active or inactive by date, unless an exception matches', () => {
    expect(verdict('Mozilla/5.0 (compatible; SomeBot/1.0)')).toEqual({
      spiderOrRobot: true,
      category: 'ACTIVE_SPIDER_OR_ROBOT',
      reason: 'FAILED_UA_EXCLUDE',
      primaryImpact: 'PAGE_IMPRESSIONS',
    })
    expect(verdict('Mozilla/5.0 FriendlyBot').reason).toBe('PASSED_ALL')
    expect(verdict('Mozilla crawler', null, JUNE_1)).toMatchObject({
      category: 'ACTIVE_SPIDER_OR_ROBOT',
      primaryImpact: 'PAGE_AND_AD_IMPRESSIONS',
    })
    expect(verdict('Mozilla crawler', null, JULY_1).category).toBe('INACTIVE_SPIDER_OR_ROBOT')
    // Inactive with no date: not a record at all. Start of string: only at the start.
    expect(verdict('Mozilla oldscraper').reason).toBe('PASSED_ALL')
    expect(verdict('Mozilla spider').reason).toBe('PASSED_ALL')
  })

  it('fails a listed address or range first, and checks the address alone when there is no user agent', () => {
    for (const address of [
      '192.0.2.7',
      '198.51.100.200',
      '2001:db8::1',
      '::ffff:192.0.2.7',
      '2001:db8:ff:1::9',
    ])
      expect(verdict('Mozilla/5.0', address).reason, address).toBe('FAILED_IP_EXCLUDE')
    expect(verdict(null, '203.0.113.1').reason).toBe('PASSED_ALL')
    expect(verdict(null, '198.51.100.1').reason).toBe('FAILED_IP_EXCLUDE')
  })

  it("lets the configuration's own patterns decide first", () => {
    const custom = lists({ customInclude: ['trusted'], customExclude: ['mozilla/5.0 (x'] })
    expect(verdict('TrustedBot', '192.0.2.7', JUNE_1, custom).reason).toBe('PASSED_ALL')
    expect(verdict('Mozilla/5.0 (X11)', null, JUNE_1, custom)).toMatchObject({
      reason: 'FAILED_UA_EXCLUDE',
      category: 'SPIDER_OR_ROBOT',
      primaryImpact: 'UNKNOWN',
    })
  })
})

describe('the IAB step', () => {
  const step = createIabStep(lists(), 'iglu:x/iab/jsonschema/1-0-1')

  it('adds the verdict as an entity when the event has a timestamp and a user agent or an address', () => {
    const event = emptyEvent()
    event.fields.derived_tstamp = JUNE_1
    event.fields.useragent = 'Mozilla/5.0 bot'
    event.fields.user_ipaddress = 'unknown'
    const failures: EnrichmentFailure[] = []
    step(event, failures)
    expect(failures).toEqual([])
    expect(event.derivedContexts).toEqual([
      {
        schema: IAB_CONTEXT,
        data: {
          spiderOrRobot: true,
          category: 'ACTIVE_SPIDER_OR_ROBOT',
          reason: 'FAILED_UA_EXCLUDE',
          primaryImpact: 'PAGE_IMPRESSIONS',
        },
      },
    ])
    const nothing = emptyEvent()
    nothing.fields.derived_tstamp = JUNE_1
    nothing.fields.useragent = '  '
    step(nothing, failures)
    expect(nothing.derivedContexts).toEqual([])
  })

  it('fails the event when the exclude record it matches has a bad impact flag', () => {
    const event = emptyEvent()
    event.fields.derived_tstamp = JUNE_1
    event.fields.useragent = 'Mozilla badflag'
    const failures: EnrichmentFailure[] = []
    step(event, failures)
    expect(event.derivedContexts).toEqual([])
    expect(failures).toEqual([
      {
        enrichment: {
          schemaKey: 'iglu:x/iab/jsonschema/1-0-1',
          identifier: 'iab-spiders-and-robots',
        },
        message: { error: "Invalid value of impression flag: '9'" },
      },
    ])
  })
})
