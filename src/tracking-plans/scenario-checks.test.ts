import { describe, expect, it } from 'vitest'
import { definitionProblems, sourceResolver, type SourceCatalog } from './scenario-checks.js'
import type { ScenarioInput } from './scenarios.schemas.js'

const ORG = '11111111-1111-4111-8111-111111111111'
const version = (v: string) => ({ version: v, schema: { type: 'object' }, inProd: true })

/** A registry holding com.acme/product 1-0-0, 1-0-1 and 2-0-0. */
const catalog: SourceCatalog = {
  describe: async (_org, vendor, name) =>
    vendor === 'com.acme' && name === 'product'
      ? { hash: 'h', hidden: false, versions: ['1-0-0', '1-0-1', '2-0-0'].map(version) }
      : null,
}

const problemsOf = async (tracked: string[]) =>
  (
    await definitionProblems(
      {
        dataProducts: {
          productExists: async () => true,
          missingSourceApplications: async () => [],
        },
        resolve: sourceResolver(catalog, ORG),
        designSchema: async () => null,
      },
      ORG,
      { name: 'x', entities: { tracked: tracked.map((source) => ({ source })) } } as ScenarioInput,
    )
  ).problems

describe('the entities of a scenario', () => {
  it('refuses two versions of one model, which inspection counts together', async () => {
    expect(
      await problemsOf([
        'iglu:com.acme/product/jsonschema/1-0-0',
        'iglu:com.acme/product/jsonschema/1-0-1',
      ]),
    ).toEqual([
      expect.objectContaining({
        type: 'Error',
        code: 'DuplicateEntity',
        source: 'entities.tracked[1].source',
        title: expect.stringContaining('counted together, whatever their version'),
      }),
    ])
  })

  it('takes two models of one entity, counted apart', async () => {
    expect(
      await problemsOf([
        'iglu:com.acme/product/jsonschema/1-0-0',
        'iglu:com.acme/product/jsonschema/2-0-0',
      ]),
    ).toEqual([])
  })
})
