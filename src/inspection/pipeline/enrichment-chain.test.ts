import { describe, expect, it } from 'vitest'
import { emptyEvent } from './canonical-event.js'
import { rawEvent } from '../../../test/support/raw-events.js'
import { ENRICHMENT_STEPS, runEnrichments } from './enrichment-chain.js'
import type { Enrichments } from './enrichments/enrichments.js'

describe('the enrichment chain', () => {
  it('runs the steps in Enrich’s order', () => {
    expect(ENRICHMENT_STEPS.map((step) => step.name)).toEqual([
      'collector version present',
      'page URL',
      'derived timestamp',
      'IAB spiders and robots',
      'ua parser',
      'currency conversion',
      'referer URL',
      'referer parser',
      'page query',
      'campaign attribution',
      'cross-domain navigation',
      'event fingerprint',
      'cookie extractor',
      'HTTP header extractor',
      'YAUAA',
      'schema fields',
      'IP lookups',
      'ASN lookups',
      'bot detection',
      'JavaScript',
      'SQL query',
      'API request',
      'IP anonymisation',
      'PII pseudonymization',
      'event specification',
    ])
  })

  it('lets each optional step see what the earlier ones did, and waits for the ones that wait', async () => {
    const seen: string[] = []
    const enrichments: Enrichments = {
      ipLookups: (event) => {
        seen.push(`ip lookups saw ${String(event.fields.user_ipaddress)}`)
      },
      sqlQuery: async (event) => {
        await Promise.resolve()
        event.fields.user_id = 'from-sql'
        seen.push('sql')
      },
      apiRequest: async (event) => {
        await Promise.resolve()
        seen.push(`api saw ${String(event.fields.user_id)}`)
      },
      anonymizeIp: (event) => {
        event.fields.user_ipaddress = '1.2.3.x'
        seen.push('anonymised')
      },
      piiPseudonymization: (event, headers) => {
        seen.push(`pii saw ${String(event.fields.user_ipaddress)} and ${headers.length} headers`)
        event.fields.user_id = 'hashed'
      },
      eventSpecification: (event) => {
        seen.push(`specification saw ${String(event.fields.user_ipaddress)}`)
        seen.push(`specification saw ${String(event.fields.user_id)}`)
        return null
      },
    }
    const event = emptyEvent()
    event.fields.user_ipaddress = '1.2.3.4'
    const outcome = await runEnrichments(
      event,
      rawEvent(undefined, { ipAddress: '1.2.3.4' }),
      enrichments,
      true,
    )
    expect(outcome).not.toBe('dropped')
    expect(seen).toEqual([
      'ip lookups saw 1.2.3.4',
      'sql',
      'api saw from-sql',
      'anonymised',
      'pii saw 1.2.3.x and 0 headers',
      'specification saw 1.2.3.x',
      'specification saw hashed',
    ])
  })

  it('does not judge an event against its specification when its own fields or entities are invalid', async () => {
    let judged = false
    const enrichments: Enrichments = {
      eventSpecification: () => {
        judged = true
        return null
      },
    }
    await runEnrichments(emptyEvent(), rawEvent(), enrichments, false)
    expect(judged).toBe(false)
  })
})
