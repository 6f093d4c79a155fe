import { describe, expect, it } from 'vitest'
import { emptyEvent } from '../canonical-event.js'
import { anonymizeIp, createAnonymizeIpStep } from './anonymize-ip.js'
import { createCampaignAttributionStep } from './campaign-attribution.js'
import { createEventFingerprintStep } from './event-fingerprint.js'
import { createCookieExtractorStep, createHeaderExtractorStep } from './extract-headers.js'
import { createRefererParserStep } from './referer-parser.js'

const utm = { mktMedium: ['utm_medium', 'medium'], mktSource: ['utm_source'], mktTerm: ['utm_term'], mktContent: ['utm_content'], mktCampaign: ['utm_campaign'] }

describe('campaign attribution', () => {
  it('takes the first configured parameter present, and click ids in their order', () => {
    const event = emptyEvent()
    createCampaignAttributionStep({ ...utm, mktClickId: { fbclid: 'Facebook' } })(event, new Map([['medium', 'b'], ['utm_medium', 'a'], ['utm_source', ''], ['msclkid', 'm1'], ['fbclid', 'f1']]))
    expect(event.fields).toMatchObject({ mkt_medium: 'a', mkt_source: null, mkt_clickid: 'm1', mkt_network: 'Microsoft' })
    expect(event.fields.mkt_term).toBeUndefined()
    const custom = emptyEvent()
    createCampaignAttributionStep({ ...utm, mktClickId: { fbclid: 'Facebook' } })(custom, new Map([['fbclid', 'f1']]))
    expect(custom.fields).toMatchObject({ mkt_clickid: 'f1', mkt_network: 'Facebook' })
  })
})

describe('IP anonymisation', () => {
  it('replaces trailing octets and segments with x', () => {
    expect(anonymizeIp('1.2.3.4', { anonOctets: 1 })).toBe('1.2.3.x')
    expect(anonymizeIp('1.2.3.4', { anonOctets: 4 })).toBe('x.x.x.x')
    expect(anonymizeIp('2001:db8::ff00:42:8329', { anonOctets: 2, anonSegments: 3 })).toBe('2001:db8:0:0:0:x:x:x')
    expect(anonymizeIp('::ffff:10.0.0.1', { anonOctets: 2 })).toBe('::ffff:10.0.x.x')
    expect(anonymizeIp('unknown', { anonOctets: 2 })).toBe('unknown')
    const event = emptyEvent()
    event.fields.user_ipaddress = '203.0.113.9'
    createAnonymizeIpStep({ anonOctets: 2 })(event)
    expect(event.fields.user_ipaddress).toBe('203.0.x.x')
  })
})

describe('event fingerprint', () => {
  it('hashes the sorted parameters with values, leaving out the excluded ones', () => {
    const step = createEventFingerprintStep({ excludeParameters: ['eid', 'stm'], hashAlgorithm: 'MD5' })
    const a = emptyEvent()
    const b = emptyEvent()
    step(a, new Map([['e', 'pv'], ['eid', '1'], ['aid', 'x'], ['stm', '5']]))
    step(b, new Map([['aid', 'x'], ['e', 'pv'], ['eid', '2'], ['empty', null]]))
    expect(a.fields.event_fingerprint).toBe(b.fields.event_fingerprint)
    // md5("aid\u001fx\u001fe\u001fpv\u001f")
    expect(a.fields.event_fingerprint).toMatch(/^[0-9a-f]{32}$/)
    const c = emptyEvent()
    createEventFingerprintStep({ excludeParameters: [], hashAlgorithm: 'SHA256' })(c, new Map([['e', 'pv']]))
    expect(c.fields.event_fingerprint).toHaveLength(64)
  })
})

describe('referer parser', () => {
  const parse = (fields: Record<string, string | number>, internalDomains: string[] = []) => {
    const event = emptyEvent()
    Object.assign(event.fields, fields)
    createRefererParserStep({ internalDomains })(event)
    return event.fields
  }
  it('classifies search with the term, social, email, internal and unknown referers', () => {
    expect(parse({ refr_urlscheme: 'https', refr_urlhost: 'www.google.co.uk', refr_urlpath: '/search', refr_urlquery: 'q=red+shoes&hl=en' })).toMatchObject({ refr_medium: 'search', refr_source: 'Google', refr_term: 'red shoes' })
    expect(parse({ refr_urlscheme: 'https', refr_urlhost: 'm.facebook.com', refr_urlpath: '/' })).toMatchObject({ refr_medium: 'social', refr_source: 'Facebook', refr_term: null })
    expect(parse({ refr_urlscheme: 'https', refr_urlhost: 'mail.google.com', refr_urlpath: '/mail/u/0/' })).toMatchObject({ refr_medium: 'email', refr_source: 'Gmail' })
    expect(parse({ refr_urlscheme: 'http', refr_urlhost: 'shop.test', page_urlhost: 'shop.test' })).toMatchObject({ refr_medium: 'internal' })
    expect(parse({ refr_urlscheme: 'http', refr_urlhost: 'blog.shop.test' }, [' blog.shop.test '])).toMatchObject({ refr_medium: 'internal' })
    expect(parse({ refr_urlscheme: 'http', refr_urlhost: 'elsewhere.test' })).toMatchObject({ refr_medium: 'unknown' })
    expect(parse({ refr_urlscheme: 'ftp', refr_urlhost: 'google.com' }).refr_medium).toBeUndefined()
  })
})

describe('cookie and header extractors', () => {
  it('adds one entity per configured cookie and matching header', () => {
    const event = emptyEvent()
    const headers = ['Host: shop.test', 'Cookie: sp=1', 'Cookie: _ga=GA1.2', 'X-Request-Id: abc']
    createCookieExtractorStep({ cookies: ['_ga'] })(event, headers)
    createHeaderExtractorStep({ headersPattern: '^X-.*' })(event, headers)
    expect(event.derivedContexts).toEqual([
      { schema: 'iglu:org.ietf/http_header/jsonschema/1-0-0', data: { name: 'X-Request-Id', value: 'abc' } },
      { schema: 'iglu:org.ietf/http_cookie/jsonschema/1-0-0', data: { name: '_ga', value: 'GA1.2' } },
    ])
  })
})
