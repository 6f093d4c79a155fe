import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileSchema, createAjv } from '../../../iglu/index.js'
import { configureFuzzSeed } from '../../../../test/support/fuzz-seed.js'
import { fuzzRuns } from '../../../../test/support/fuzz-settings.js'
import { CORE_SCHEMAS } from '../../resolver/core-schemas.js'
import { emptyEvent } from '../canonical-event.js'
import { createYauaaStep, YAUAA_CONTEXT, yauaaFields } from './yauaa.js'

configureFuzzSeed()

// Real user agents, with the fields YAUAA gives them where Floe gives the same, and Floe's own
// value where docs/inspection.md says it differs (marked "differs").
const TABLE: readonly (readonly [string, string, Record<string, string>])[] = [
  [
    'Samsung Galaxy S9, Chrome (Enrich’s own YAUAA test)',
    'Mozilla/5.0 (Linux; Android 8.0.0; SM-G960F Build/R16NW) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/62.0.3202.84 Mobile Safari/537.36',
    {
      deviceClass: 'Phone',
      deviceBrand: 'Samsung',
      deviceName: 'Samsung SM-G960F',
      operatingSystemClass: 'Mobile',
      operatingSystemName: 'Android',
      operatingSystemVersion: '8.0.0',
      operatingSystemVersionMajor: '8',
      operatingSystemNameVersion: 'Android 8.0.0',
      operatingSystemNameVersionMajor: 'Android 8',
      operatingSystemVersionBuild: 'R16NW',
      layoutEngineClass: 'Browser',
      layoutEngineName: 'Blink',
      layoutEngineVersion: '62.0',
      layoutEngineVersionMajor: '62',
      layoutEngineNameVersion: 'Blink 62.0',
      layoutEngineNameVersionMajor: 'Blink 62',
      agentClass: 'Browser',
      agentName: 'Chrome',
      agentVersion: '62.0.3202.84',
      agentVersionMajor: '62',
      agentNameVersion: 'Chrome 62.0.3202.84',
      agentNameVersionMajor: 'Chrome 62',
    },
  ],
  [
    'Chrome on Windows 10 or 11, reduced user agent',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    {
      deviceClass: 'Desktop',
      deviceName: 'Desktop',
      deviceCpu: 'Intel x86_64',
      deviceCpuBits: '64',
      operatingSystemName: 'Windows NT',
      operatingSystemVersion: '??',
      operatingSystemNameVersion: 'Windows NT ??',
      layoutEngineVersion: '131',
      agentName: 'Chrome',
      agentVersion: '131',
      agentNameVersion: 'Chrome 131',
    },
  ],
  [
    'Firefox on Ubuntu',
    'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
    {
      deviceClass: 'Desktop',
      operatingSystemClass: 'Desktop',
      operatingSystemName: 'Ubuntu',
      layoutEngineName: 'Gecko',
      layoutEngineVersion: '133.0',
      layoutEngineBuild: '20100101',
      agentName: 'Firefox',
      agentVersion: '133.0',
      agentVersionMajor: '133',
    },
  ],
  [
    'Safari on macOS (differs: YAUAA says >=10.15.7 for the frozen version)',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
    {
      deviceClass: 'Desktop',
      deviceBrand: 'Apple',
      deviceName: 'Apple Macintosh',
      operatingSystemName: 'Mac OS',
      operatingSystemVersion: '10.15.7',
      layoutEngineName: 'AppleWebKit',
      layoutEngineVersion: '605.1.15',
      agentName: 'Safari',
      agentVersion: '18.1',
    },
  ],
  [
    'Safari on an iPhone',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_6_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1',
    {
      deviceClass: 'Phone',
      deviceName: 'Apple iPhone',
      operatingSystemClass: 'Mobile',
      operatingSystemName: 'iOS',
      operatingSystemVersion: '17.6.1',
      agentName: 'Safari',
      agentNameVersionMajor: 'Safari 17',
    },
  ],
  [
    'Safari on an iPad',
    'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
    { deviceClass: 'Tablet', deviceName: 'Apple iPad', operatingSystemName: 'iOS' },
  ],
  [
    'Edge on Windows',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.70',
    { deviceClass: 'Desktop', agentName: 'Edge', agentVersion: '131.0.2903.70' },
  ],
  [
    'Internet Explorer 11 on Windows 7',
    'Mozilla/5.0 (Windows NT 6.1; WOW64; Trident/7.0; rv:11.0) like Gecko',
    {
      operatingSystemName: 'Windows NT',
      operatingSystemVersion: '7',
      layoutEngineName: 'Trident',
      agentName: 'Internet Explorer',
      agentVersionMajor: '11',
    },
  ],
  [
    'Googlebot',
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    {
      deviceClass: 'Robot',
      operatingSystemClass: 'Cloud',
      layoutEngineClass: 'Robot',
      agentClass: 'Robot',
      agentName: 'Googlebot',
      agentVersion: '2.1',
      agentInformationUrl: 'http://www.google.com/bot.html',
    },
  ],
  [
    'curl (differs: YAUAA names it Curl)',
    'curl/8.5.0',
    { deviceClass: 'Robot', agentClass: 'Robot', agentName: 'curl', agentVersion: '8.5.0' },
  ],
  [
    'Samsung smart TV (Tizen)',
    'Mozilla/5.0 (SMART-TV; LINUX; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 76.0.3809.146/6.0 TV Safari/537.36',
    { deviceClass: 'TV', operatingSystemClass: 'Embedded', operatingSystemName: 'Tizen' },
  ],
  [
    'PlayStation 4',
    'Mozilla/5.0 (PlayStation 4 5.55) AppleWebKit/601.2 (KHTML, like Gecko)',
    { deviceClass: 'Game Console', deviceName: 'Sony PlayStation 4' },
  ],
  [
    'An Android WebView',
    'Mozilla/5.0 (Linux; Android 14; SM-S918B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.6778.39 Mobile Safari/537.36',
    {
      deviceName: 'Samsung SM-S918B',
      agentClass: 'Browser Webview',
      agentName: 'Chrome Webview',
      operatingSystemVersionBuild: 'UP1A.231005.007',
    },
  ],
  [
    'Chrome OS',
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    { deviceClass: 'Desktop', operatingSystemName: 'Chrome OS' },
  ],
]

const validate = compileSchema(createAjv(), CORE_SCHEMAS.get(YAUAA_CONTEXT)!)

describe('YAUAA enrichment', () => {
  it.each(TABLE)('%s', (_what, useragent, expected) => {
    const fields = yauaaFields(useragent)
    expect(fields).toMatchObject(expected)
    expect(validate(fields)).toBe(true)
  })

  it('gives deviceClass Unknown alone for an empty or absent user agent, as Enrich does', () => {
    expect(yauaaFields('')).toEqual({ deviceClass: 'Unknown' })
    expect(yauaaFields(null)).toEqual({ deviceClass: 'Unknown' })
  })

  it('fills what it can of any string, and always within the schema', () => {
    const agents = fc.oneof(
      fc.string({ maxLength: 1000 }),
      fc
        .constantFrom(...TABLE.map((row) => row[1]))
        .chain((ua) =>
          fc
            .tuple(fc.nat(ua.length), fc.string({ maxLength: 400 }))
            .map(([at, noise]) => ua.slice(0, at) + noise + ua.slice(at)),
        ),
      fc.constant(`${'x'.repeat(400)}bot/${'9'.repeat(300)} +http://${'a'.repeat(600)}`),
    )
    fc.assert(
      fc.property(agents, (useragent) => {
        const fields = yauaaFields(useragent)
        expect(validate(fields), JSON.stringify(validate.errors)).toBe(true)
      }),
      { numRuns: fuzzRuns(300, 5000) },
    )
  })

  it('puts the entity first in derived_contexts, with every event, and keeps answers per user agent', () => {
    const step = createYauaaStep({ cacheSize: 2 })
    const event = emptyEvent()
    event.derivedContexts.push({ schema: 'iglu:com.acme/earlier/jsonschema/1-0-0', data: {} })
    event.fields.useragent = TABLE[0]![1]
    step(event)
    expect(event.derivedContexts.map((c) => c.schema)).toEqual([
      YAUAA_CONTEXT,
      'iglu:com.acme/earlier/jsonschema/1-0-0',
    ])
    expect(event.derivedContexts[0]!.data).toMatchObject({ deviceName: 'Samsung SM-G960F' })
    const again = emptyEvent()
    again.fields.useragent = TABLE[0]![1]
    step(again)
    // A cached answer, but each event gets its own copy.
    expect(again.derivedContexts[0]!.data).toEqual(event.derivedContexts[0]!.data)
    expect(again.derivedContexts[0]!.data).not.toBe(event.derivedContexts[0]!.data)
    const none = emptyEvent()
    step(none)
    expect(none.derivedContexts).toEqual([
      { schema: YAUAA_CONTEXT, data: { deviceClass: 'Unknown' } },
    ])
  })
})

describe('a user agent longer than the useragent field allows', () => {
  it('is read up to the field’s 1 000 characters, which bounds the patterns’ work', () => {
    const browser = TABLE[1]![1].padEnd(1000, ' ')
    const long = `${browser} Googlebot/2.1 (+http://www.google.com/bot.html)`
    // Read whole, the robot at the end would make it a Robot.
    expect(yauaaFields(long.slice(1000 - 20))).toMatchObject({ deviceClass: 'Robot' })
    expect(yauaaFields(long)).toEqual(yauaaFields(browser))
    expect(yauaaFields(long)).toMatchObject({ deviceClass: 'Desktop', agentName: 'Chrome' })
  })
})
