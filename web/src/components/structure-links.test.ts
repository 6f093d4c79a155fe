import { describe, expect, it } from 'vitest'
import { igluParts, specificationsUsing, structureHashOf } from './structure-links.js'

const checkout = { vendor: 'com.acme', name: 'checkout', format: 'jsonschema' }

describe('links between data structures and event specifications', () => {
  it('reads Iglu URIs, and nothing else', () => {
    expect(igluParts('iglu:com.acme/checkout/jsonschema/1-0-0')).toEqual({
      ...checkout,
      version: '1-0-0',
    })
    expect(igluParts('com.acme/checkout/jsonschema/1-0-0')).toBeNull()
    expect(igluParts('iglu:com.acme/checkout/1-0-0')).toBeNull()
  })

  it('finds the specifications naming a structure as event or entity, at any version', () => {
    const scenarios = [
      { name: 'Purchase', event: { source: 'iglu:com.acme/checkout/jsonschema/1-1-0' } },
      {
        name: 'Basket',
        event: { source: 'iglu:com.acme/basket/jsonschema/1-0-0' },
        entities: {
          tracked: [{ source: 'iglu:com.acme/user/jsonschema/1-0-0' }],
          enriched: [{ source: 'iglu:com.acme/checkout/jsonschema/2-0-0' }],
        },
      },
      { name: 'Other vendor', event: { source: 'iglu:com.other/checkout/jsonschema/1-0-0' } },
      { name: 'No event' },
    ]
    const uses = specificationsUsing(scenarios, checkout)
    expect(uses.map((use) => [use.scenario.name, use.role, use.version])).toEqual([
      ['Basket', 'entity', '2-0-0'],
      ['Purchase', 'event', '1-1-0'],
    ])
  })

  it('finds the registry hash of a source, when the registry has its structure', () => {
    const structures = [{ hash: 'abc', ...checkout }]
    expect(structureHashOf('iglu:com.acme/checkout/jsonschema/3-0-0', structures)).toBe('abc')
    expect(structureHashOf('iglu:com.acme/user/jsonschema/1-0-0', structures)).toBeNull()
    expect(structureHashOf('not a uri', structures)).toBeNull()
  })
})
