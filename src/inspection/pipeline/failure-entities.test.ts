import { describe, expect, it } from 'vitest'
import { failureEntities, withOrigin } from './failure-entities.js'

const processor = { artifact: 'floe', version: '1.0.0' }
const NOW = Date.parse('2026-01-01T00:00:00Z')
const CLICK = 'iglu:com.acme/click/jsonschema/1-0-0'
const UNSTRUCT = 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-1-0'
const entityOf = (message: unknown, stage: 'schema' | 'enrichment' = 'schema') =>
  failureEntities([message], stage, processor, NOW)[0]?.data

describe("failure entities, as Enrich's Failure writes them for incomplete events", () => {
  it('names the field a violation came from and carries what failed', () => {
    const invalid = withOrigin(
      {
        schemaKey: CLICK,
        error: {
          error: 'ValidationError',
          dataReports: [
            {
              message: '$.a: integer found, string expected',
              path: '$.a',
              keyword: 'type',
              targets: ['string'],
            },
          ],
        },
      },
      'contexts',
      { a: 1 },
    )
    expect(entityOf(invalid)).toEqual({
      failureType: 'ValidationError',
      errors: [
        {
          message: '$.a: integer found, string expected',
          source: 'contexts',
          path: '$.a',
          keyword: 'type',
          targets: ['string'],
        },
      ],
      schema: CLICK,
      data: { a: 1 },
      timestamp: '2026-01-01T00:00:00.000Z',
      componentName: 'floe',
      componentVersion: '1.0.0',
    })
  })

  it("words resolution failures, criterion mismatches and non-Iglu values in Enrich's words", () => {
    const missing = withOrigin(
      { schemaKey: CLICK, error: { error: 'ResolutionError', lookupHistory: [] } },
      'unstruct',
      { b: 2 },
    )
    expect(entityOf(missing)).toMatchObject({
      failureType: 'ResolutionError',
      errors: [{ message: `Resolution error: schema ${CLICK} not found`, source: 'unstruct' }],
      data: { b: 2 },
    })
    const mismatch = withOrigin(
      {
        schemaKey: UNSTRUCT,
        schemaCriterion: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-*',
      },
      'unstruct',
      { schema: CLICK, data: {} },
    )
    expect(entityOf(mismatch)).toMatchObject({
      failureType: 'CriterionMismatch',
      errors: [
        {
          message: `Unexpected schema: ${UNSTRUCT} does not match the criterion`,
          source: 'unstruct',
        },
      ],
      schema: UNSTRUCT,
      data: { schema: CLICK, data: {} },
    })
    const notIglu = withOrigin({ json: { x: 1 }, error: 'INVALID_DATA_PAYLOAD' }, 'contexts', {
      x: 1,
    })
    expect(entityOf(notIglu)).toMatchObject({
      failureType: 'NotIglu',
      errors: [{ message: 'Invalid data payload', source: 'contexts' }],
      data: { x: 1 },
    })
    expect(entityOf({ field: 'unstruct', value: '{nope', error: 'invalid json' })).toMatchObject({
      failureType: 'NotJSON',
      errors: [{ message: 'invalid json', source: 'unstruct' }],
      data: { unstruct: '{nope' },
    })
  })

  it('names the enrichment that failed (none for a built-in step), and the input it refused', () => {
    expect(
      entityOf(
        {
          enrichment: null,
          message: { field: 'event', value: 'ad', expectation: 'no longer supported' },
        },
        'enrichment',
      ),
    ).toMatchObject({
      failureType: 'EnrichmentError: ',
      errors: [{ message: 'event - no longer supported', source: 'event' }],
      schema: null,
      data: { event: 'ad' },
    })
    expect(
      entityOf(
        {
          enrichment: {
            schemaKey: 'iglu:com.acme/enrichment/jsonschema/1-0-0',
            identifier: 'my-lookup',
          },
          message: { error: 'the lookup timed out' },
        },
        'enrichment',
      ),
    ).toMatchObject({
      failureType: 'EnrichmentError: my-lookup',
      errors: [{ message: 'the lookup timed out' }],
      schema: 'iglu:com.acme/enrichment/jsonschema/1-0-0',
      data: null,
    })
  })

  it('keeps data an object or null, as the failure schema wants: other values under their source', () => {
    const stringData = withOrigin(
      { schemaKey: CLICK, error: { error: 'ValidationError', dataReports: [] } },
      'unstruct',
      'just text',
    )
    expect(entityOf(stringData)).toMatchObject({ data: { unstruct: 'just text' } })
  })
})
