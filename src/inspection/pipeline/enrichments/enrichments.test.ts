import { describe, expect, it } from 'vitest'
import { emptyEvent } from '../canonical-event.js'
import { anonymizeIp, createAnonymizeIpStep } from './anonymize-ip.js'
import { createCampaignAttributionStep } from './campaign-attribution.js'
import { createEventFingerprintStep } from './event-fingerprint.js'
import { createCookieExtractorStep, createHeaderExtractorStep } from './extract-headers.js'
import { ASN_CONTEXT, asJavaFloat, createIpLookupsStep } from './ip-lookups.js'
import { createRefererParserStep } from './referer-parser.js'

const utm = {
  mktMedium: ['utm_medium', 'medium'],
  mktSource: ['utm_source'],
  mktTerm: ['utm_term'],
  mktContent: ['utm_content'],
  mktCampaign: ['utm_campaign'],
}

describe('campaign attribution', () => {
  it('takes the first configured parameter present, and click ids in their order', () => {
    const event = emptyEvent()
    createCampaignAttributionStep({ ...utm, mktClickId: { fbclid: 'Facebook' } })(
      event,
      new Map([
        ['medium', 'b'],
        ['utm_medium', 'a'],
        ['utm_source', ''],
        ['msclkid', 'm1'],
        ['fbclid', 'f1'],
      ]),
    )
    expect(event.fields).toMatchObject({
      mkt_medium: 'a',
      mkt_source: null,
      mkt_clickid: 'm1',
      mkt_network: 'Microsoft',
    })
    expect(event.fields.mkt_term).toBeNull()
    const custom = emptyEvent()
    createCampaignAttributionStep({ ...utm, mktClickId: { fbclid: 'Facebook' } })(
      custom,
      new Map([['fbclid', 'f1']]),
    )
    expect(custom.fields).toMatchObject({ mkt_clickid: 'f1', mkt_network: 'Facebook' })
  })
})

describe('IP anonymisation', () => {
  it('replaces trailing octets and segments with x', () => {
    expect(anonymizeIp('1.2.3.4', { anonOctets: 1 })).toBe('1.2.3.x')
    expect(anonymizeIp('1.2.3.4', { anonOctets: 4 })).toBe('x.x.x.x')
    expect(anonymizeIp('2001:db8::ff00:42:8329', { anonOctets: 2, anonSegments: 3 })).toBe(
      '2001:db8:0:0:0:x:x:x',
    )
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
    const step = createEventFingerprintStep({
      excludeParameters: ['eid', 'stm'],
      hashAlgorithm: 'MD5',
    })
    const a = emptyEvent()
    const b = emptyEvent()
    step(
      a,
      new Map([
        ['e', 'pv'],
        ['eid', '1'],
        ['aid', 'x'],
        ['stm', '5'],
      ]),
    )
    step(
      b,
      new Map([
        ['aid', 'x'],
        ['e', 'pv'],
        ['eid', '2'],
        ['empty', null],
      ]),
    )
    expect(a.fields.event_fingerprint).toBe(b.fields.event_fingerprint)
    // md5("aid\u001fx\u001fe\u001fpv\u001f")
    expect(a.fields.event_fingerprint).toMatch(/^[0-9a-f]{32}$/)
    const c = emptyEvent()
    createEventFingerprintStep({ excludeParameters: [], hashAlgorithm: 'SHA256' })(
      c,
      new Map([['e', 'pv']]),
    )
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
    expect(
      parse({
        refr_urlscheme: 'https',
        refr_urlhost: 'www.google.co.uk',
        refr_urlpath: '/search',
        refr_urlquery: 'q=red+shoes&hl=en',
      }),
    ).toMatchObject({ refr_medium: 'search', refr_source: 'Google', refr_term: 'red shoes' })
    expect(
      parse({ refr_urlscheme: 'https', refr_urlhost: 'm.facebook.com', refr_urlpath: '/' }),
    ).toMatchObject({ refr_medium: 'social', refr_source: 'Facebook', refr_term: null })
    expect(
      parse({
        refr_urlscheme: 'https',
        refr_urlhost: 'mail.google.com',
        refr_urlpath: '/mail/u/0/',
      }),
    ).toMatchObject({ refr_medium: 'email', refr_source: 'Gmail' })
    expect(
      parse({ refr_urlscheme: 'http', refr_urlhost: 'shop.test', page_urlhost: 'shop.test' }),
    ).toMatchObject({ refr_medium: 'internal' })
    expect(
      parse({ refr_urlscheme: 'http', refr_urlhost: 'blog.shop.test' }, [' blog.shop.test ']),
    ).toMatchObject({ refr_medium: 'internal' })
    expect(parse({ refr_urlscheme: 'http', refr_urlhost: 'elsewhere.test' })).toMatchObject({
      refr_medium: 'unknown',
    })
    expect(parse({ refr_urlscheme: 'ftp', refr_urlhost: 'google.com' }).refr_medium).toBeNull()
  })
})

describe('cookie and header extractors', () => {
  it('adds one entity per configured cookie and matching header', () => {
    const event = emptyEvent()
    const headers = ['Host: shop.test', 'Cookie: sp=1', 'Cookie: _ga=GA1.2', 'X-Request-Id: abc']
    createCookieExtractorStep({ cookies: ['_ga'] })(event, headers)
    createHeaderExtractorStep({ headersPattern: '^X-.*' })(event, headers)
    expect(event.derivedContexts).toEqual([
      {
        schema: 'iglu:org.ietf/http_header/jsonschema/1-0-0',
        data: { name: 'X-Request-Id', value: 'abc' },
      },
      {
        schema: 'iglu:org.ietf/http_cookie/jsonschema/1-0-0',
        data: { name: '_ga', value: 'GA1.2' },
      },
    ])
  })
})

describe('IP lookups', () => {
  const city = {
    country: { iso_code: 'FR' },
    subdivisions: [{ iso_code: 'IDF', names: { en: 'Île-de-France' } }],
    city: { names: { en: 'Paris', fr: 'Paris' } },
    location: { latitude: 48.8566, longitude: 2.3522, time_zone: 'Europe/Paris' },
  }

  it('writes geo, ISP, domain and connection fields from the records of the address, and an ASN entity', () => {
    const seen: string[] = []
    const event = emptyEvent()
    event.fields.user_ipaddress = '192.0.2.1'
    createIpLookupsStep({
      geo: (ip) => (seen.push(ip), city),
      isp: () => ({ isp: 'ISP', organization: 'Org' }),
      domain: () => ({ domain: 'example.fr' }),
      connectionType: () => ({ connection_type: 'Corporate' }),
      asn: () => ({ autonomous_system_number: 3215, autonomous_system_organization: 'Orange' }),
    })(event)
    expect(seen).toEqual(['192.0.2.1'])
    expect(event.fields).toMatchObject({
      geo_country: 'FR',
      geo_region: 'IDF',
      geo_region_name: 'Île-de-France',
      geo_city: 'Paris',
      geo_zipcode: null,
      geo_latitude: 48.8566,
      geo_longitude: 2.3522,
      geo_timezone: 'Europe/Paris',
      ip_isp: 'ISP',
      ip_organization: 'Org',
      ip_domain: 'example.fr',
      ip_netspeed: 'Corporate',
    })
    expect(event.derivedContexts).toEqual([
      { schema: ASN_CONTEXT, data: { number: 3215, organization: 'Orange' } },
    ])
  })

  it('suppresses lookup failures and missing records, and needs an address', () => {
    const event = emptyEvent()
    event.fields.user_ipaddress = 'not-an-ip'
    createIpLookupsStep({
      geo: () => {
        throw new Error('unreadable address')
      },
      isp: () => null,
      asn: () => ({ autonomous_system_organization: 'no number' }),
    })(event)
    expect(event.fields).toEqual({ ...emptyEvent().fields, user_ipaddress: 'not-an-ip' })
    expect(event.derivedContexts).toEqual([])
    const none = emptyEvent()
    createIpLookupsStep({ geo: () => city })(none)
    expect(none.fields).toEqual(emptyEvent().fields)
    expect(Object.values(none.fields).every((value) => value === null)).toBe(true)
  })

  it('keeps coordinates as Java floats print them, and a record without a location as 0, 0', () => {
    expect([
      asJavaFloat(51.5142),
      asJavaFloat(37.386051),
      asJavaFloat(-122.0838551),
      asJavaFloat(0.1),
      asJavaFloat(undefined),
    ]).toEqual([51.5142, 37.38605, -122.083855, 0.1, 0])
    const event = emptyEvent()
    event.fields.user_ipaddress = '192.0.2.1'
    createIpLookupsStep({ geo: () => ({ country: { iso_code: 'FR' } }) })(event)
    expect(event.fields).toMatchObject({
      geo_country: 'FR',
      geo_latitude: 0,
      geo_longitude: 0,
      geo_region: null,
      geo_city: null,
    })
  })
})
