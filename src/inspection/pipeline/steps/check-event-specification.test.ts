import { describe, expect, it } from 'vitest'
import type { EnrichedEvent } from '../canonical-event.js'
import {
  UNUSABLE_SCHEMA_KEYWORD,
  type DataReport,
  type IgluValidation,
  type ValidationVerdict,
} from '../iglu-validation.js'
import {
  checkEventSpecification,
  indexSpecifications,
  MAX_LISTED_VIOLATIONS,
  type EventSpecification,
  type SpecificationCheck,
} from './check-event-specification.js'

const EVENT = 'iglu:com.acme/checkout/jsonschema/1-0-0'
const ENTITY = 'iglu:com.acme/product/jsonschema/1-0-0'

const restriction = (name: string) => ({ type: 'object', description: name })

const spec: EventSpecification = {
  id: 'spec-1',
  version: 2,
  status: 'published',
  name: 'Checkout',
  dataProductId: null,
  dataProductName: null,
  eventSource: EVENT,
  eventSchema: restriction('event'),
  entities: [
    { source: ENTITY, minCardinality: 0, maxCardinality: 1, schema: restriction('entity') },
  ],
  appIds: ['shop'],
}

const event = {
  unstructEvent: { schema: EVENT, data: { total: -1 } },
  contexts: [
    { schema: ENTITY, data: { sku: 1 } },
    { schema: ENTITY, data: { sku: 2 } },
  ],
  fields: { app_id: 'elsewhere' },
} as unknown as EnrichedEvent

/** Each restriction breaks one rule named after its schema; `later` names those answered later. */
function validation(later: readonly string[]): Pick<IgluValidation, 'validateWith'> {
  return {
    validateWith: (schema, data) => {
      const name = String(schema.description)
      const verdict: ValidationVerdict = {
        kind: 'invalid',
        error: {
          error: 'ValidationError',
          dataReports: [
            { message: `${name}: ${JSON.stringify(data)}`, path: '$', keyword: name, targets: [] },
          ],
        },
      }
      return later.includes(name) ? Promise.resolve(verdict) : verdict
    },
  }
}

describe('an event against its specification', () => {
  it('gives the same violations, in the same order, whether its restrictions answer at once or later', async () => {
    const index = indexSpecifications([spec])
    const atOnce = checkEventSpecification(event, index, validation([]))
    expect(atOnce).not.toBeInstanceOf(Promise)
    expect((atOnce as SpecificationCheck).violations.map((v) => v.rule)).toEqual([
      'event',
      'maxCardinality',
      'entity',
      'entity',
      'appId',
    ])
    // Each entity's violation says which entity it is.
    const entities = (atOnce as SpecificationCheck).violations.filter((v) => v.rule === 'entity')
    expect(entities.map((v) => [v.entity, v.message])).toEqual([
      [0, 'entity: {"sku":1}'],
      [1, 'entity: {"sku":2}'],
    ])
    expect((atOnce as SpecificationCheck).violations[0]).not.toHaveProperty('entity')
    for (const later of [['event'], ['entity'], ['event', 'entity']]) {
      const checked = checkEventSpecification(event, index, validation(later))
      expect(checked).toBeInstanceOf(Promise)
      expect(await checked, later.join()).toEqual(atOnce)
    }
  })
})

describe('an event matched by its schema alone', () => {
  const bare = (appId: string) =>
    ({
      unstructEvent: { schema: EVENT, data: {} },
      contexts: [],
      fields: { app_id: appId },
    }) as unknown as EnrichedEvent
  const none = { validateWith: () => ({ kind: 'valid' }) as ValidationVerdict }
  const anyApp: EventSpecification = {
    ...spec,
    id: 'any-app',
    eventSchema: null,
    entities: [],
    appIds: null,
  }
  const ios: EventSpecification = { ...anyApp, id: 'ios', appIds: ['ios'] }
  const web: EventSpecification = { ...anyApp, id: 'web', appIds: ['web'] }
  const matched = (specs: EventSpecification[], appId: string) => {
    const check = checkEventSpecification(bare(appId), indexSpecifications(specs), none)
    return (check as SpecificationCheck | null)?.specificationId ?? null
  }

  it('takes the one specification of its schema, or of several the one its app ID allows', () => {
    expect(matched([ios], 'web')).toBe('ios')
    expect(matched([anyApp, ios], 'web')).toBe('any-app')
    expect(matched([ios, web], 'web')).toBe('web')
    // Still ambiguous: no match rather than a guess.
    expect(matched([anyApp, ios], 'ios')).toBeNull()
    expect(matched([ios, web], 'android')).toBeNull()
  })
})

describe('a page view or page ping', () => {
  const PAGE_VIEW = 'iglu:com.snowplowanalytics.snowplow/page_view/jsonschema/1-0-0'
  const PAGE_PING = 'iglu:com.snowplowanalytics.snowplow/page_ping/jsonschema/1-0-0'
  const builtIn = (type: string, contexts: unknown[] = []) =>
    ({
      unstructEvent: null,
      contexts,
      fields: { app_id: 'shop', event: type },
    }) as unknown as EnrichedEvent
  const recorded: unknown[] = []
  const closed = {
    validateWith: (_schema: Record<string, unknown>, data: unknown) => {
      recorded.push(data)
      return { kind: 'valid' } as ValidationVerdict
    },
  }
  const pageViews: EventSpecification = {
    ...spec,
    id: 'page-views',
    eventSource: PAGE_VIEW,
    eventSchema: { type: 'object', additionalProperties: false },
    entities: [],
  }
  const check = (event: EnrichedEvent, named?: string) =>
    checkEventSpecification(
      named === undefined
        ? event
        : ({
            ...event,
            contexts: [
              {
                schema: 'iglu:com.snowplowanalytics.snowplow/event_specification/jsonschema/1-0-0',
                data: { id: named },
              },
            ],
          } as unknown as EnrichedEvent),
      indexSpecifications([pageViews]),
      closed,
    ) as SpecificationCheck | null

  it('is matched to the specification of its built-in schema, its restriction checked on no data', () => {
    const inferred = check(builtIn('page_view'))
    expect(inferred).toMatchObject({ specificationId: 'page-views', matchedBy: 'inferred' })
    expect(inferred?.violations).toEqual([])
    expect(recorded).toEqual([{}])
    expect(check(builtIn('page_ping'))).toBeNull()
    expect(check(builtIn('struct'))).toBeNull()
  })

  it('named by its entity, breaks a specification of the other built-in event', () => {
    expect(check(builtIn('page_view'), 'page-views')?.violations).toEqual([])
    expect(check(builtIn('page_ping'), 'page-views')?.violations).toEqual([
      expect.objectContaining({
        rule: 'eventSchema',
        message: `the event is ${PAGE_PING}; the specification's is ${PAGE_VIEW}`,
      }),
    ])
    expect(check(builtIn('struct'), 'page-views')?.violations).toEqual([
      expect.objectContaining({
        rule: 'eventSchema',
        message: `the event is a struct event, not a self-describing one; the specification's is ${PAGE_VIEW}`,
      }),
    ])
  })
})

describe('an event breaking its specification many times over', () => {
  const entities = 300
  const crowded = {
    ...event,
    contexts: Array.from({ length: entities }, (_, sku) => ({ schema: ENTITY, data: { sku } })),
  } as unknown as EnrichedEvent
  const unrunnable: DataReport = {
    message: 'a pattern RE2 cannot run',
    path: '$',
    keyword: UNUSABLE_SCHEMA_KEYWORD,
    targets: [],
  }
  /** Each restriction breaks one rule; the entity's also has a part that cannot be run. */
  const unusable: Pick<IgluValidation, 'validateWith'> = {
    validateWith: (schema) => {
      const name = String(schema.description)
      const broken: DataReport = { message: name, path: '$', keyword: name, targets: [] }
      return {
        kind: 'invalid',
        error: {
          error: 'ValidationError',
          dataReports: name === 'entity' ? [broken, unrunnable] : [broken],
        },
      }
    },
  }

  it(`lists the first ${MAX_LISTED_VIOLATIONS}, then the first of each rule not yet listed, and counts the rest`, () => {
    const checked = checkEventSpecification(
      crowded,
      indexSpecifications([spec]),
      unusable,
    ) as SpecificationCheck
    // event, maxCardinality, one per entity, appId
    const found = 1 + 1 + entities + 1
    expect(checked.violations).toHaveLength(MAX_LISTED_VIOLATIONS + 1)
    expect(checked.violations.at(-1)?.rule).toBe('appId')
    expect(new Set(checked.violations.map((v) => v.rule))).toEqual(
      new Set(['event', 'maxCardinality', 'entity', 'appId']),
    )
    const data = checked.entity.data as Record<string, unknown>
    expect(data.errors).toEqual(checked.violations)
    expect(data.errorsNotListed).toBe(found - MAX_LISTED_VIOLATIONS - 1)
    expect(data.isValid).toBe(false)
    // The same unusable restriction, met in every entity, is named once.
    expect(data.notChecked).toEqual([{ schema: ENTITY, message: 'a pattern RE2 cannot run' }])
  })

  it('lists every violation, and no count, when there are few', () => {
    const checked = checkEventSpecification(
      event,
      indexSpecifications([spec]),
      validation([]),
    ) as SpecificationCheck
    expect(checked.violations).toHaveLength(5)
    expect(checked.entity.data).not.toHaveProperty('errorsNotListed')
  })
})
