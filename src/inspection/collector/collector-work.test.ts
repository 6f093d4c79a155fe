import { describe, expect, it } from 'vitest'
import type { CollectorRequest } from './collector-request.js'
import { readForAnswer } from './collector-work.js'

const request = (overrides: Partial<CollectorRequest> = {}): CollectorRequest => ({
  api: { vendor: 'com.snowplowanalytics.snowplow', version: 'tp2' },
  method: 'POST',
  rawQuery: '',
  headers: {
    cookie: 'sp=0b6cd1a4-f4b4-4a43-9a1f-5c1e3e7d0a11',
    'content-type': 'application/json',
  },
  remoteAddress: '127.0.0.1',
  body: '{"schema":"iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4","data":[]}',
  timestamp: Date.parse('2026-12-01T10:00:00Z'),
  collectorName: 'floe',
  nuidCookie: 'sp',
  ...overrides,
})

describe('a collector request read for its answer', () => {
  it('names the network user and leaves its payload, as plain data another thread can take', () => {
    const { collected, work } = readForAnswer(request(), 1_000_000)
    expect(collected).toEqual({
      nuid: '0b6cd1a4-f4b4-4a43-9a1f-5c1e3e7d0a11',
      anonymous: false,
      hadNuidCookie: true,
    })
    expect(work.kind).toBe('payload')
    expect(structuredClone(work)).toEqual(work)
  })

  it('leaves a bad row’s cause, and no network user, for a body too large or a request it cannot read', () => {
    const large = readForAnswer(request({ body: 'x'.repeat(101) }), 100)
    expect(large).toEqual({
      collected: { nuid: null, anonymous: false, hadNuidCookie: false },
      work: { kind: 'too-large', body: 'x'.repeat(101), maxPayloadBytes: 100 },
    })
    const unreadable = readForAnswer(request({ rawQuery: 'nuid=not-a-uuid' }), 1_000_000)
    expect(unreadable.collected.nuid).toBeNull()
    expect(unreadable.work).toMatchObject({
      kind: 'unreadable',
      request: 'POST /com.snowplowanalytics.snowplow/tp2?nuid=not-a-uuid',
      message: { payloadField: 'networkUserId', expectation: 'a UUID' },
    })
  })
})
