import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { diffSchemasCommand } from '../src/cli/index.js'
import { objectSchema } from './support/registry-builders.js'

// Issue 31, item 2: `floe schemas diff A B`, the compatibility engine on two files.

const root = mkdtempSync(path.join(tmpdir(), 'floe-schemas-diff-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function file(name: string, value: unknown): string {
  const full = path.join(root, name)
  writeFileSync(full, typeof value === 'string' ? value : JSON.stringify(value, null, 2))
  return full
}
const cart = (version: string, maximum: number, extra: Record<string, object> = {}) =>
  objectSchema('com.acme', 'cart', version, {
    quantity: { type: 'integer', minimum: 1, maximum },
    ...extra,
  })

describe('floe schemas diff', () => {
  it('says compatible for an addition, with the change it is', async () => {
    const before = file('a-1-0-0', cart('1-0-0', 10))
    const after = file('a-1-0-1', cart('1-0-1', 10, { note: { type: 'string', maxLength: 9 } }))
    const outcome = await diffSchemasCommand(before, after, {})
    expect(outcome).toEqual({
      exitCode: 0,
      output: [
        `${before} → ${after}: compatible`,
        `  every value valid under ${before} is valid under ${after}`,
        '  a minor change from 1-0-0: 1-0-1 says so',
        '',
      ].join('\n'),
    })
  })

  it('names a witness for a breaking change, and the version it understates', async () => {
    const before = file('b-1-0-0', cart('1-0-0', 10))
    const after = file('b-1-0-1', cart('1-0-1', 5))
    const outcome = await diffSchemasCommand(before, after, {})
    expect(outcome.exitCode).toBe(1)
    const [head, intro, witness, , change] = outcome.output.split('\n')
    expect(head).toBe(`${before} → ${after}: incompatible`)
    expect(intro).toBe(`  a value valid under ${before} that ${after} refuses at /quantity:`)
    const quantity = (JSON.parse(witness ?? 'null') as { quantity: number }).quantity
    expect(quantity).toBeGreaterThan(5)
    expect(quantity).toBeLessThanOrEqual(10)
    expect(change).toBe('  a revision change from 1-0-0: 1-1-0 says so; 1-0-1 understates it')
    const json = JSON.parse((await diffSchemasCommand(before, after, { format: 'json' })).output)
    expect(json).toMatchObject({
      outcome: 'incompatible',
      path: '/quantity',
      versionChange: { changeType: 'revision', suggestedVersion: '1-1-0', misversioned: true },
    })
  })

  it('compares any two schemas, and refuses files that are not JSON Schemas', async () => {
    const loose = file('loose.json', { type: 'string' })
    const strict = file('strict.json', { type: 'string', maxLength: 3 })
    expect((await diffSchemasCommand(strict, loose, {})).exitCode).toBe(0)
    expect((await diffSchemasCommand(loose, strict, {})).output).not.toContain('change from')
    const notJson = file('broken.json', '{')
    expect(await diffSchemasCommand(notJson, loose, {})).toMatchObject({
      exitCode: 2,
      output: '',
      errorOutput: expect.stringMatching(/^floe: .*broken\.json is not JSON: /),
    })
    expect((await diffSchemasCommand(path.join(root, 'missing'), loose, {})).exitCode).toBe(2)
    expect((await diffSchemasCommand(loose, strict, { format: 'yaml' })).exitCode).toBe(2)
    // An object that is no JSON Schema, on either side, is named: not an undecidable verdict (3).
    const invalid = file('invalid.json', { type: 5 })
    for (const [before, after] of [
      [invalid, loose],
      [loose, invalid],
    ] as const)
      expect(await diffSchemasCommand(before, after, {})).toMatchObject({
        exitCode: 2,
        output: '',
        errorOutput: expect.stringMatching(/^floe: .*invalid\.json is not a valid JSON Schema: /),
      })
  })
})
