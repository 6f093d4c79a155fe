import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  readCollectorRequest,
  renderedContentType,
  type CollectorRequest,
} from './collector-request.js'

const request = (
  headers: CollectorRequest['headers'],
  remoteAddress: string | null = '127.0.0.1',
): CollectorRequest => ({
  api: { vendor: 'com.snowplowanalytics.snowplow', version: 'tp1' },
  method: 'GET',
  rawQuery: 'e=pv&p=web',
  headers,
  remoteAddress,
  body: null,
  timestamp: 1_700_000_000_000,
  collectorName: 'floe-test',
  nuidCookie: 'sp',
})

function headerLinesOf(headers: CollectorRequest['headers']): readonly string[] {
  const reading = readCollectorRequest(request(headers))
  if (reading.kind !== 'payload') throw new Error('expected a payload')
  return reading.payload.context.headers
}

describe('the header lines a collector request records', () => {
  it('writes each header as `Name: value`, a list header once per value, cookies one by one', () => {
    expect(
      headerLinesOf({
        host: 'shop.test',
        'user-agent': 'curl/8',
        'x-request-id': ['a', 'b'],
        cookie: 'sp=00000000-0000-4000-8000-000000000001; _ga=GA1',
        'content-type': 'Text/Plain',
      }),
    ).toEqual([
      'Host: shop.test',
      'User-Agent: curl/8',
      'X-Request-Id: a',
      'X-Request-Id: b',
      'Cookie: sp=00000000-0000-4000-8000-000000000001',
      'Cookie: _ga=GA1',
      'text/plain',
    ])
  })

  it('gives the right line for any name and value, past every bound of the lines kept', () => {
    // Many names, many values per name and long values: each line is still its own header's.
    const seed = 20261127
    console.log(`fuzz seed ${seed}`)
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom('x-a', 'x-b', 'accept', 'x-trace-id').chain((name) =>
              fc.oneof(
                fc.constant(name),
                fc.nat(200).map((n) => `x-name-${n}`),
              ),
            ),
            fc.oneof(
              fc.nat(300).map((n) => `v${n}`),
              fc.string({ maxLength: 8 }),
              fc.string({ minLength: 250, maxLength: 300 }),
            ),
          ),
          { minLength: 1, maxLength: 40 },
        ),
        (pairs) => {
          for (const [name, value] of pairs) {
            const prefix = name.replace(
              /(^|-)([a-z])/g,
              (_, d: string, l: string) => d + l.toUpperCase(),
            )
            expect(headerLinesOf({ [name]: value })).toEqual([`${prefix}: ${value}`])
          }
        },
      ),
      { seed, numRuns: 200 },
    )
  })

  it('records the socket address, an IPv4-mapped IPv6 address as its IPv4 address', () => {
    const addressOf = (remoteAddress: string | null) => {
      const reading = readCollectorRequest(request({}, remoteAddress))
      if (reading.kind !== 'payload') throw new Error('expected a payload')
      return reading.payload.context.ipAddress
    }
    expect(addressOf('::ffff:192.0.2.7')).toBe('192.0.2.7')
    expect(addressOf('192.0.2.8')).toBe('192.0.2.8')
    expect(addressOf('::1')).toBe('::1')
    expect(addressOf('2001:db8::ffff:1')).toBe('2001:db8::ffff:1')
    expect(addressOf(null)).toBeNull()
  })

  it('names the source by the host without its port, and shares it and the path between requests', () => {
    const read = (headers: CollectorRequest['headers']) => {
      const reading = readCollectorRequest(request(headers))
      if (reading.kind !== 'payload') throw new Error('expected a payload')
      return reading.payload
    }
    const first = read({ host: 'collector.test:9090' })
    const second = read({ host: 'collector.test:9090' })
    expect(first.source).toEqual({
      name: 'floe-test',
      encoding: 'UTF-8',
      hostname: 'collector.test',
    })
    expect(second.source).toBe(first.source)
    expect(second.api).toBe(first.api)
    expect(first.api).toEqual({ vendor: 'com.snowplowanalytics.snowplow', version: 'tp1' })
    expect(read({}).source.hostname).toBeNull()
    expect(read({ host: 'other.test' }).source.hostname).toBe('other.test')
    expect(read({ host: 'bad\nhost:1' }).source.hostname).toBe('bad\nhost')
  })

  it('shares the list of header lines between requests that send the same lines', () => {
    const headers = {
      host: 'shop.test',
      'user-agent': 'curl/8',
      cookie: 'sp=00000000-0000-4000-8000-00000000000a',
    }
    const first = headerLinesOf({ ...headers })
    expect(headerLinesOf({ ...headers })).toBe(first)
    const other = headerLinesOf({ ...headers, 'user-agent': 'curl/9' })
    expect(other).not.toBe(first)
    expect(other).toContain('User-Agent: curl/9')
    expect(first).toContain('User-Agent: curl/8')
  })
})

describe('the content type a collector request records', () => {
  it('renders it as http4s does, then lowercases it: the tracker protocol accepts any spacing', () => {
    expect(renderedContentType('application/json;charset=UTF-8')).toBe(
      'application/json; charset=utf-8',
    )
    expect(renderedContentType('Application/JSON ;  charset = "utf-8"')).toBe(
      'application/json; charset=utf-8',
    )
    expect(renderedContentType('application/json; charset=utf-8')).toBe(
      'application/json; charset=utf-8',
    )
    expect(renderedContentType('text/plain')).toBe('text/plain')
    // Not a media type: kept as sent, lowercased.
    expect(renderedContentType('JSON please')).toBe('json please')
  })

  it('is stable: a rendered type renders to itself', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (raw) => {
        const once = renderedContentType(raw)
        expect(renderedContentType(once)).toBe(once)
      }),
      { seed: 20261129 },
    )
  })
})
