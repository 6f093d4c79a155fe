import { describe, expect, it } from 'vitest'
import {
  indexSpecifications,
  type EventSpecification,
} from '../pipeline/steps/check-event-specification.js'
import { unmetExpectations } from './coverage-assertions.js'
import type { CoverageReport } from './coverage.js'

const FIRST = '11111111-1111-4111-8111-111111111111'
const SECOND = '22222222-2222-4222-8222-222222222222'

const spec = (id: string, dataProductId: string): EventSpecification => ({
  id,
  version: 0,
  status: 'published',
  name: id,
  dataProductId,
  dataProductName: 'Search',
  eventSource: 'iglu:com.acme/search/jsonschema/1-0-0',
  eventSchema: null,
  entities: [],
  appIds: null,
})

const report = {
  dataProducts: [
    { id: FIRST, name: 'Search' },
    { id: SECOND, name: 'Search' },
  ],
  eventSpecifications: [
    { id: 'seen', name: 'seen', eventsSeen: 1 },
    { id: 'never', name: 'never', eventsSeen: 0 },
  ],
  events: { matched: 1, withViolations: 0, unmatched: 0, bad: 0 },
} as unknown as CoverageReport
const index = indexSpecifications([spec('seen', FIRST), spec('never', SECOND)])

describe('a data product asserted by name', () => {
  it('is refused when several products have that name, naming their ids', () => {
    expect(unmetExpectations(report, index, { dataProduct: 'Search' })).toEqual([
      {
        check: 'dataProduct',
        message: `dataProduct: 2 data products are named "Search" (${FIRST}, ${SECOND}): name one by its id`,
      },
    ])
  })

  it('is found by its id, each of its specifications expected', () => {
    expect(unmetExpectations(report, index, { dataProduct: FIRST })).toEqual([])
    expect(unmetExpectations(report, index, { dataProduct: SECOND.toUpperCase() })).toEqual([
      expect.objectContaining({ check: 'seen', actual: 0 }),
    ])
  })
})

describe('a data product asserted for one app', () => {
  const web = { ...spec('web-only', FIRST), appIds: ['web'] }
  const ios = { ...spec('ios-only', FIRST), appIds: ['ios'] }
  const anyApp = spec('any-app', FIRST)
  const seenNone = {
    ...report,
    dataProducts: [{ id: FIRST, name: 'Search' }],
    eventSpecifications: [web, ios, anyApp].map((s) => ({ id: s.id, name: s.id, eventsSeen: 0 })),
  } as unknown as CoverageReport
  const expected = (appId: string | null) =>
    unmetExpectations(seenNone, indexSpecifications([web, ios, anyApp]), {
      dataProduct: FIRST,
      appId,
    }).map((failure) => failure.eventSpecification?.id)

  it("expects only the product's specifications that the app can meet", () => {
    expect(expected('web')).toEqual(['web-only', 'any-app'])
    expect(expected(null)).toEqual(['web-only', 'ios-only', 'any-app'])
  })
})
