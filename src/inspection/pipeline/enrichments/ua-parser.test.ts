import { describe, expect, it } from 'vitest'
import { emptyEvent } from '../canonical-event.js'
import { pipelineDeps, rawEvent } from '../../../../test/support/raw-events.js'
import { enrichEvent } from '../enrich-event.js'
import type { EnrichmentFailure } from './enrichments.js'
import { compileUaParserRules, parseUserAgent } from './ua-parser-rules.js'
import { createUaParserStep, UA_PARSER_CONTEXT } from './ua-parser.js'

describe('user-agent rules', () => {
  const { rules, skipped } = compileUaParserRules({
    user_agent_parsers: [
      { regex: '(?i)Java-only' },
      {
        regex: '(Namoroka|Shiretoko|Minefield)/(\\d+)\\.(\\d+)\\.(\\d+(?:pre|))',
        family_replacement: 'Firefox ($1)',
      },
      {
        regex: '(Fennec)/(\\d+)\\.(\\d+)(pre)',
        family_replacement: 'Firefox Mobile',
        v2_replacement: '$3 $5 ',
      },
      { regex: 'Bot(?:/(\\d+))?', family_replacement: 'Crawler' },
      { regex: '(Brwsr)/(\\d+)\\.(\\d+)' },
      { regex: '(Brwsr)(Late)' },
    ],
    os_parsers: [
      { regex: 'Win(95|98|NT)', os_replacement: 'Windows $1' },
      { regex: '(Haiku) R(\\d+)', os_v2_replacement: '0', os_v4_replacement: 'beta' },
    ],
    device_parsers: [
      {
        regex: '; *(pedi)_(plus)_(w) build',
        regex_flag: 'i',
        device_replacement: 'Odys $1 $2 $3',
        brand_replacement: 'Odys',
        model_replacement: '$1 $2 $3',
      },
      { regex: '(Kindle)' },
    ],
  })

  it('skips a regex JavaScript refuses, and reports it', () => {
    expect(skipped).toEqual([
      expect.objectContaining({ list: 'user_agent_parsers', index: 0, regex: '(?i)Java-only' }),
    ])
    expect(rules.userAgent).toHaveLength(5)
  })

  it('takes the first match, replacements with $1-$9 (missing groups empty, results trimmed), else groups by position', () => {
    expect(parseUserAgent(rules, 'Gecko Shiretoko/3.5.1pre').userAgent).toEqual({
      family: 'Firefox (Shiretoko)',
      major: '3',
      minor: '5',
      patch: '1pre',
    })
    // v2 from its template: $5 does not exist, the trailing space is trimmed.
    expect(parseUserAgent(rules, 'Fennec/4.0pre').userAgent).toEqual({
      family: 'Firefox Mobile',
      major: '4',
      minor: '0',
      patch: 'pre',
    })
    // An unmatched optional group is missing, not empty.
    expect(parseUserAgent(rules, 'SomeBot').userAgent).toEqual({
      family: 'Crawler',
      major: null,
      minor: null,
      patch: null,
    })
    // The first matching rule decides, even when a later one would say more; groups stay positional.
    expect(parseUserAgent(rules, 'Bot/7 Brwsr/1.2').userAgent).toEqual({
      family: 'Crawler',
      major: null,
      minor: null,
      patch: null,
    })
    expect(parseUserAgent(rules, 'Brwsr/1.2').userAgent).toEqual({
      family: 'Brwsr',
      major: '1',
      minor: '2',
      patch: null,
    })
    expect(parseUserAgent(rules, 'BrwsrLate').userAgent).toEqual({
      family: 'Brwsr',
      major: 'Late',
      minor: null,
      patch: null,
    })
    expect(parseUserAgent(rules, 'Mozilla/4.0 (Win98)').os).toEqual({
      family: 'Windows 98',
      major: null,
      minor: null,
      patch: null,
      patchMinor: null,
    })
    expect(parseUserAgent(rules, 'Haiku R1').os).toEqual({
      family: 'Haiku',
      major: '1',
      minor: '0',
      patch: null,
      patchMinor: 'beta',
    })
  })

  it('matches device rules case-insensitively with regex_flag i; model defaults to group 1, brand to none', () => {
    expect(parseUserAgent(rules, 'Android; PEDI_PLUS_W Build/JDQ39').device).toEqual({
      family: 'Odys PEDI PLUS W',
      brand: 'Odys',
      model: 'PEDI PLUS W',
    })
    expect(parseUserAgent(rules, 'Kindle/3.0').device).toEqual({
      family: 'Kindle',
      brand: null,
      model: 'Kindle',
    })
    expect(parseUserAgent(rules, 'Android; pedi_plus_x build').device).toEqual({
      family: 'Other',
      brand: null,
      model: null,
    })
  })

  it('is "Other" with every version missing when no rule matches', () => {
    expect(parseUserAgent(rules, '')).toEqual({
      userAgent: { family: 'Other', major: null, minor: null, patch: null },
      os: { family: 'Other', major: null, minor: null, patch: null, patchMinor: null },
      device: { family: 'Other', brand: null, model: null },
    })
  })

  it('refuses a document without the three lists', () => {
    expect(() => compileUaParserRules({ user_agent_parsers: [] })).toThrow(
      /os_parsers must be a list/,
    )
    expect(() =>
      compileUaParserRules({
        user_agent_parsers: [{ family_replacement: 'x' }],
        os_parsers: [],
        device_parsers: [],
      }),
    ).toThrow(/user_agent_parsers\[0\] has no regex/)
  })
})

describe('ua parser', () => {
  const schemaKey = 'iglu:com.snowplowanalytics.snowplow/ua_parser_config/jsonschema/1-0-1'
  const { rules } = compileUaParserRules({
    user_agent_parsers: [{ regex: '(Brwsr)/(\\d+)(?:\\.(\\d+)|)' }],
    os_parsers: [{ regex: '(Plan9)(?: (\\d+)|)(?:\\.(\\d+)|)(?:\\.(\\d+)|)(?:\\.(\\d+)|)' }],
    device_parsers: [],
  })
  it('prepends a ua_parser_context whose version strings leave out the missing parts', () => {
    const event = emptyEvent()
    event.fields.useragent = 'Brwsr/12 (Plan9 4.1.0.7)'
    event.derivedContexts.push({ schema: 'iglu:x/earlier/jsonschema/1-0-0', data: {} })
    const failures: EnrichmentFailure[] = []
    createUaParserStep({ rules, schemaKey })(event, failures)
    expect(failures).toEqual([])
    expect(event.derivedContexts[0]).toEqual({
      schema: UA_PARSER_CONTEXT,
      data: {
        useragentFamily: 'Brwsr',
        useragentMajor: '12',
        useragentMinor: null,
        useragentPatch: null,
        useragentVersion: 'Brwsr 12',
        osFamily: 'Plan9',
        osMajor: '4',
        osMinor: '1',
        osPatch: '0',
        osPatchMinor: '7',
        osVersion: 'Plan9 4.1.0.7',
        deviceFamily: 'Other',
      },
    })
    expect(event.derivedContexts).toHaveLength(2)
  })

  it('fails the event as an enrichment failure naming ua-parser, with its failure entity on the incomplete event', async () => {
    const broken = /x/
    broken.exec = () => {
      throw new Error('regex engine failure')
    }
    const raw = rawEvent(undefined, { ipAddress: '192.0.2.1', useragent: 'Brwsr/1' })
    const uaParser = createUaParserStep({
      rules: { ...rules, os: [{ regex: broken, fields: [] }] },
      schemaKey,
    })
    const outcome = await enrichEvent(raw, pipelineDeps({ uaParser }))
    if (outcome.kind !== 'bad') throw new Error('expected a bad event')
    const row = JSON.parse(outcome.bad.errors[1] ?? '{}') as {
      schema: string
      data: { failure: { messages: unknown[] } }
    }
    expect(row.schema).toMatch(/\/enrichment_failures\//)
    expect(row.data.failure.messages).toEqual([
      {
        enrichment: { schemaKey, identifier: 'ua-parser' },
        message: { error: expect.stringContaining('regex engine failure') },
      },
    ])
    const entities = (
      outcome.incomplete?.event.derived_contexts as { data: { data: { failureType: string } }[] }
    ).data
    expect(entities.map((e) => e.data.failureType)).toEqual(['EnrichmentError: ua-parser'])
  })

  it('adds nothing without a user agent, and reports a parser exception as its own failure', () => {
    const none = emptyEvent()
    createUaParserStep({ rules, schemaKey })(none, [])
    expect(none.derivedContexts).toEqual([])

    const broken = /x/
    broken.exec = () => {
      throw new Error('regex engine failure')
    }
    const event = emptyEvent()
    event.fields.useragent = 'Brwsr/1'
    const failures: EnrichmentFailure[] = []
    createUaParserStep({ rules: { ...rules, device: [{ regex: broken, fields: [] }] }, schemaKey })(
      event,
      failures,
    )
    expect(event.derivedContexts).toEqual([])
    expect(failures).toEqual([
      {
        enrichment: { schemaKey, identifier: 'ua-parser' },
        message: { error: expect.stringMatching(/Brwsr\/1.*regex engine failure/) },
      },
    ])
  })
})
