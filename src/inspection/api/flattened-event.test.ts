import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { aGoodEvent } from '../../../test/support/event-store.contract.js'
import { FUZZ_SEED } from '../../../test/support/fuzz-seed.js'
import { FlattenedEvent } from './flattened-event.js'
import { toLossyJson } from '../pipeline/lossy-json.js'
import type { GoodEvent } from '../pipeline/enrich-event.js'

const schemaUri = fc
  .record({
    vendor: fc.constantFrom('com.acme', 'com.acme-x', 'org.w3', 'io.x.y'),
    name: fc.constantFrom('product', 'PerformanceTiming', 'add-to-cart', 'a.b'),
    model: fc.integer({ min: 1, max: 3 }),
  })
  .map(({ vendor, name, model }) => `iglu:${vendor}/${name}/jsonschema/${model}-0-0`)

const data = fc.oneof(
  fc.dictionary(fc.constantFrom('sku', 'price', 'tags', 'nested'), fc.jsonValue({ maxDepth: 2 })),
  fc.jsonValue({ maxDepth: 1 }),
)
const entity = fc.oneof(
  fc.record({ schema: schemaUri, data }),
  fc.record({ schema: fc.constantFrom('not an uri', 'iglu:bad'), data }),
  fc.jsonValue({ maxDepth: 1 }),
)
const contextsOf = (list: unknown[]) => ({
  schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-1',
  data: list,
})

/** Canonical events with entities, a self-describing event and coordinates, or without. */
const events: fc.Arbitrary<GoodEvent> = fc
  .record({
    appId: fc.string({ maxLength: 5 }),
    contexts: fc.option(fc.array(entity, { maxLength: 4 })),
    derived: fc.option(fc.array(entity, { maxLength: 2 })),
    unstruct: fc.option(fc.record({ schema: schemaUri, data })),
    latitude: fc.option(fc.double({ noNaN: true })),
    longitude: fc.option(fc.double({ noNaN: true })),
    userId: fc.option(fc.string({ maxLength: 5 })),
  })
  .map((drawn) => {
    const event = aGoodEvent({ appId: drawn.appId })
    Object.assign(event.event, {
      user_id: drawn.userId,
      geo_latitude: drawn.latitude,
      geo_longitude: drawn.longitude,
      ...(drawn.contexts === null ? {} : { contexts: contextsOf(drawn.contexts) }),
      ...(drawn.derived === null ? {} : { derived_contexts: contextsOf(drawn.derived) }),
      ...(drawn.unstruct === null
        ? {}
        : {
            unstruct_event: {
              schema: 'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0',
              data: drawn.unstruct,
            },
          }),
    })
    return event
  })

describe('a flattened event read a column at a time', () => {
  it(`has the whole flattened form's columns, in its order, with its values (seed ${FUZZ_SEED})`, () => {
    fc.assert(
      fc.property(events, fc.string({ maxLength: 12 }), (event, otherName) => {
        const whole = toLossyJson(event.event)
        const flattened = new FlattenedEvent(event)
        expect(flattened.columnNames()).toEqual(Object.keys(whole))
        expect(flattened.whole()).toEqual(whole)
        for (const name of [...Object.keys(whole), otherName, 'geo_location', 'contexts_x_1']) {
          expect(flattened.column(name)).toEqual(
            Object.hasOwn(whole, name) ? whole[name] : undefined,
          )
        }
      }),
      { seed: FUZZ_SEED, numRuns: 400 },
    )
  })
})
