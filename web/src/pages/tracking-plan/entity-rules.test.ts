import { describe, expect, it } from 'vitest'
import type { EntityReference } from '../../api/tracking-plans.js'
import { entityReferences, entityRows, newEntityRow, type EntityRow } from './entity-rules.js'

const PRODUCT = 'iglu:com.acme/product/jsonschema/1-0-0'
const USER = 'iglu:com.acme/user/jsonschema/1-0-0'

const row = (fields: Partial<EntityRow>): EntityRow => ({ ...newEntityRow(), ...fields })

describe('the entity rules of the event specification form', () => {
  it('gives back the rules it was shown, field for field', () => {
    const references: EntityReference[] = [
      {
        source: PRODUCT,
        minCardinality: 1,
        maxCardinality: 3,
        schema: { type: 'object', properties: { sku: { type: 'string', maxLength: 12 } } },
        comment: 'the products added',
      },
      { source: USER },
      { source: USER, minCardinality: 0 },
    ]
    expect(entityReferences(entityRows(references))).toEqual(references)
  })

  it('reads what was typed: trimmed text, empty fields absent, a wholly empty row skipped', () => {
    expect(
      entityReferences([
        row({ source: ` ${PRODUCT} `, minCardinality: '1', maxCardinality: '', comment: '  ' }),
        row({}),
        row({ source: USER, maxCardinality: '0', schema: '{"type":"object"}' }),
      ]),
    ).toEqual([
      { source: PRODUCT, minCardinality: 1 },
      { source: USER, maxCardinality: 0, schema: { type: 'object' } },
    ])
  })

  it.each([
    [row({ minCardinality: '1' }), 'Entity 1: its data structure (Iglu URI) is missing'],
    [row({ source: USER, minCardinality: '-1' }), 'Entity 1: the minimum must be a whole number'],
    [row({ source: USER, maxCardinality: '1.5' }), 'Entity 1: the maximum must be a whole number'],
    [row({ source: USER, maxCardinality: 'many' }), 'Entity 1: the maximum must be a whole number'],
    [
      row({ source: USER, minCardinality: '2', maxCardinality: '1' }),
      'Entity 1: the maximum (1) is below the minimum (2)',
    ],
    [row({ source: USER, schema: '{"type":' }), 'Entity 1: its schema is not JSON'],
    [row({ source: USER, schema: '[]' }), 'Entity 1: its schema must be a JSON Schema object'],
  ])('refuses %o, naming the entity and the field', (bad, message) => {
    expect(() => entityReferences([row({ source: PRODUCT }), bad])).toThrow(
      message.replace('Entity 1', 'Entity 2'),
    )
  })
})
