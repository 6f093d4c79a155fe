import { describe, expect, it } from 'vitest'
import { emptyEvent, type EnrichedEvent } from '../canonical-event.js'
import {
  BOT_DETECTION_CONTEXT,
  createAsnLookupsStep,
  createBotDetectionStep,
} from './bot-detection.js'
import { ASN_CONTEXT } from './ip-lookups.js'
import { YAUAA_CONTEXT } from './yauaa.js'

const IAB = 'iglu:com.iab.snowplow/spiders_and_robots/jsonschema/1-0-0'
const CLIENT = 'iglu:com.snowplowanalytics.snowplow/client_side_bot_detection/jsonschema/1-0-0'
const ALL = { useYauaa: true, useIab: true, useAsnLookups: true, useClientSideDetection: true }

function event(derived: { schema: string; data: unknown }[], contexts: typeof derived = []) {
  const made = emptyEvent()
  made.derivedContexts.push(...derived)
  made.contexts.push(...contexts)
  return made
}
const verdict = (e: EnrichedEvent) => {
  expect(e.derivedContexts[0]?.schema).toBe(BOT_DETECTION_CONTEXT)
  return e.derivedContexts[0]!.data
}

describe('ASN lookups', () => {
  const step = createAsnLookupsStep({
    botAsns: new Set([64500]),
    bypassPlatforms: new Set(['srv']),
  })

  it('makes the asn entity again with likelyBot, leaving out a null organization', () => {
    const e = event([
      { schema: YAUAA_CONTEXT, data: { deviceClass: 'Desktop' } },
      { schema: ASN_CONTEXT, data: { number: 64500, organization: 'Cloud' } },
      {
        schema: 'iglu:com.snowplowanalytics.snowplow/asn/jsonschema/1-0-0',
        data: { number: 64500 },
      },
    ])
    e.fields.platform = 'web'
    step(e)
    expect(e.derivedContexts[1]).toEqual({
      schema: ASN_CONTEXT,
      data: { number: 64500, organization: 'Cloud', likelyBot: true },
    })
    // Only the exact schema IP lookups derive (1-0-1) is read, as in Enrich.
    expect(e.derivedContexts[2]!.data).toEqual({ number: 64500 })
    const other = event([{ schema: ASN_CONTEXT, data: { number: 64501, organization: null } }])
    step(other)
    expect(other.derivedContexts[0]!.data).toEqual({ number: 64501, likelyBot: false })
  })

  it("leaves a bypassed platform's asn entity as it is", () => {
    const entity = { schema: ASN_CONTEXT, data: { number: 64500, organization: 'Cloud' } }
    const e = event([entity])
    e.fields.platform = 'srv'
    step(e)
    expect(e.derivedContexts[0]).toBe(entity)
  })
})

describe('bot detection', () => {
  it('says not a bot, with no indicators, when no signal says so', () => {
    const e = event([
      { schema: YAUAA_CONTEXT, data: { deviceClass: 'Phone', agentClass: 'Browser' } },
    ])
    createBotDetectionStep(ALL)(e)
    expect(verdict(e)).toEqual({ bot: false, indicators: [] })
    expect(e.derivedContexts).toHaveLength(2)
  })

  it("names each enabled signal that says bot: the tracker's first, then the derived ones oldest first", () => {
    // Derived entities newest first, as the chain leaves them: asn (IP lookups), YAUAA, IAB.
    const e = event(
      [
        { schema: ASN_CONTEXT, data: { number: 1, likelyBot: true } },
        { schema: YAUAA_CONTEXT, data: { deviceClass: 'Robot Imitator', agentClass: 'Browser' } },
        { schema: IAB, data: { spiderOrRobot: true } },
      ],
      [{ schema: CLIENT, data: { bot: true, kind: 'selenium' } }],
    )
    createBotDetectionStep(ALL)(e)
    expect(verdict(e)).toEqual({
      bot: true,
      indicators: ['clientSideDetection', 'iab', 'yauaa', 'asnLookups'],
    })
  })

  it('reads only the signals it is told to use, and each by its own rule', () => {
    const derived = [
      { schema: ASN_CONTEXT, data: { number: 1, likelyBot: true } },
      { schema: YAUAA_CONTEXT, data: { deviceClass: 'Desktop', agentClass: 'Robot Mobile' } },
      { schema: IAB, data: { spiderOrRobot: false } },
    ]
    const client = [{ schema: CLIENT, data: { bot: true } }]
    const onlyYauaa = event(derived, client)
    createBotDetectionStep({ ...ALL, useAsnLookups: false, useClientSideDetection: false })(
      onlyYauaa,
    )
    expect(verdict(onlyYauaa)).toEqual({ bot: true, indicators: ['yauaa'] })
    const none = event(derived, client)
    createBotDetectionStep({
      useYauaa: false,
      useIab: true,
      useAsnLookups: false,
      useClientSideDetection: false,
    })(none)
    expect(verdict(none)).toEqual({ bot: false, indicators: [] })
  })
})
