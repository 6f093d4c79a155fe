import { describe, expect, it } from 'vitest'
import { planPush, publishOrder, type LocalSchema } from './push-plan.js'

const schema = (
  name: string,
  version: string,
  refs: string[] = [],
  hash = `${name}-${version}`,
): LocalSchema => {
  const [model, revision, addition] = version.split('-').map(Number) as [number, number, number]
  return {
    path: `com.acme/${name}/jsonschema/${version}`,
    key: { vendor: 'com.acme', name, format: 'jsonschema', version: { model, revision, addition } },
    payload: JSON.stringify({
      definitions: Object.fromEntries(
        refs.map((r, i) => [`d${i}`, { $ref: `iglu:com.acme/${r}/jsonschema/1-0-0#` }]),
      ),
    }),
    contentHash: hash,
  }
}
const names = (schemas: readonly LocalSchema[]) =>
  schemas.map(
    (s) =>
      `${s.key.name} ${s.key.version.model}-${s.key.version.revision}-${s.key.version.addition}`,
  )

describe('the push plan', () => {
  it('orders by references, then name, each schema lowest version first; a cycle keeps name order', () => {
    expect(
      names(
        publishOrder([
          schema('a', '1-0-1', ['c']),
          schema('a', '1-0-0'),
          schema('c', '1-0-0'),
          schema('b', '1-0-0'),
        ]),
      ),
    ).toEqual(['c 1-0-0', 'a 1-0-0', 'a 1-0-1', 'b 1-0-0'])
    expect(names(publishOrder([schema('y', '1-0-0', ['x']), schema('x', '1-0-0', ['y'])]))).toEqual(
      ['y 1-0-0', 'x 1-0-0'],
    )
  })

  it('goes to PROD through DEV, skips what is there, and never touches PROD content', () => {
    const remote = new Map([
      ['com.acme/a/jsonschema/1-0-0', { DEV: 'a-1-0-0', PROD: 'a-1-0-0' }],
      ['com.acme/b/jsonschema/1-0-0', { DEV: 'b-1-0-0' }],
      ['com.acme/c/jsonschema/1-0-0', { DEV: 'old', PROD: 'old' }],
    ])
    const steps = planPush(
      [schema('a', '1-0-0'), schema('b', '1-0-0'), schema('c', '1-0-0'), schema('d', '1-0-0')],
      remote,
      {
        env: 'PROD',
        patch: true,
      },
    )
    expect(steps.map((s) => `${s.kind} ${s.schema.key.name}`)).toEqual([
      'skip a',
      'deploy-prod b',
      'refuse c',
      'deploy-dev d',
      'deploy-prod d',
    ])
  })
})
