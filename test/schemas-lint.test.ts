import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { lintSchemasCommand } from '../src/cli/index.js'
import { BODY_LIMITS } from '../src/http/index.js'
import { MAX_SCHEMA_FILE_BYTES } from '../src/registry/index.js'
import { objectSchema } from './support/registry-builders.js'

// Issue 31, item 1: `floe schemas lint DIR`, offline.

const root = mkdtempSync(path.join(tmpdir(), 'floe-schemas-lint-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** A directory of schema files: `{ 'com.acme/cart/jsonschema/1-0-0': text }`. */
function directory(name: string, files: Record<string, string>): string {
  const dir = path.join(root, name)
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    writeFileSync(path.join(dir, file), text)
  }
  return dir
}

const cart = (version: string, maximum: number, extra: Record<string, object> = {}) =>
  `${JSON.stringify(
    objectSchema('com.acme', 'cart', version, {
      quantity: { type: 'integer', minimum: 1, maximum },
      ...extra,
    }),
    null,
    2,
  )}\n`

describe('floe schemas lint', () => {
  it('passes a clean directory: an addition numbered as one', async () => {
    const dir = directory('clean', {
      'com.acme/cart/jsonschema/1-0-0': cart('1-0-0', 10),
      'com.acme/cart/jsonschema/1-0-1': cart('1-0-1', 10, {
        currency: { type: 'string', enum: ['EUR'] },
      }),
      'README.md': '# not a schema',
    })
    const outcome = await lintSchemasCommand(dir, {})
    expect(outcome).toEqual({
      exitCode: 0,
      output: '2 schemas: 0 errors, 0 warnings, 0 info (1 other files skipped)\n',
    })
  })

  it('names each problem of a broken directory by file and line, and exits with 1', async () => {
    const wrongPath = cart('1-0-0', 10).replace('"name": "cart"', '"name": "basket"')
    const dir = directory('broken', {
      'com.acme/cart/jsonschema/1-0-0': cart('1-0-0', 10),
      // A breaking change (the maximum falls) numbered as an addition.
      'com.acme/cart/jsonschema/1-0-1': cart('1-0-1', 5),
      // A gap: no 1-0-2 below it.
      'com.acme/cart/jsonschema/1-0-3': cart('1-0-3', 5),
      'com.acme/other/jsonschema/1-0-0': wrongPath,
      'com.acme/broken/jsonschema/1-0-0': '{\n  "self": {\n    "vendor": "com.acme",,\n  }\n}\n',
    })
    const outcome = await lintSchemasCommand(dir, {})
    expect(outcome.exitCode).toBe(1)
    const lines = outcome.output.trimEnd().split('\n')
    const at = (file: string) => lines.filter((l) => l.startsWith(path.join(dir, file)))
    expect(at('com.acme/broken/jsonschema/1-0-0')).toEqual([
      `${path.join(dir, 'com.acme/broken/jsonschema/1-0-0')}:3: error json not JSON: property name expected`,
    ])
    expect(at('com.acme/cart/jsonschema/1-0-1')).toEqual([
      expect.stringMatching(
        /:7: error versionBump \/self\/version: a revision change from 1-0-0 numbered 1-0-1; 1-1-0 would say so: \{"quantity":([6-9]|10)\} is valid under 1-0-0 and refused by 1-0-1$/,
      ),
    ])
    expect(at('com.acme/cart/jsonschema/1-0-3')).toEqual([
      expect.stringMatching(/:7: error versionGap \/self\/version: 1-0-3 needs 1-0-2 first/),
    ])
    expect(at('com.acme/other/jsonschema/1-0-0')).toEqual([
      expect.stringMatching(
        /:5: error path \/self\/name: "basket" differs from the file's path, which says "other"$/,
      ),
    ])
    expect(lines.at(-1)).toBe('5 schemas: 4 errors, 0 warnings, 0 info')
  })

  it('reports warnings without failing, unless --strict; and answers JSON with --format json', async () => {
    const loose = JSON.stringify(
      { ...JSON.parse(cart('1-0-0', 10)), properties: { note: { type: 'string' } } },
      null,
      2,
    )
    const dir = directory('warnings', { 'com.acme/cart/jsonschema/1-0-0': loose })
    const relaxed = await lintSchemasCommand(dir, {})
    expect(relaxed.exitCode).toBe(0)
    expect(relaxed.output).toMatch(/:\d+: warning stringLength \/properties\/note: /)
    expect((await lintSchemasCommand(dir, { strict: true })).exitCode).toBe(1)
    const json = await lintSchemasCommand(dir, { format: 'json' })
    const answer = JSON.parse(json.output)
    expect(answer.summary).toMatchObject({ files: 1, errors: 0, warnings: 1 })
    expect(answer.findings).toContainEqual({
      file: 'com.acme/cart/jsonschema/1-0-0',
      line: expect.any(Number),
      severity: 'warning',
      rule: 'stringLength',
      message: expect.stringContaining('/properties/note'),
    })
  })

  it('refuses what the registry would refuse on push: a key written twice, a file over its body limit', async () => {
    const twice = cart('1-0-0', 10).replace(
      '"quantity": {',
      '"quantity": { "type": "string" },\n      "quantity": {',
    )
    const padded = cart('1-0-0', 10).replace(
      '"type": "object"',
      `"description": "${'x'.repeat(MAX_SCHEMA_FILE_BYTES)}",\n  "type": "object"`,
    )
    // The same value twice is let through, as the registry does (Iglu Central has such schemas).
    const same = cart('1-0-0', 10)
      .replaceAll('"cart"', '"same"')
      .replace('"type": "object"', '"type": "object",\n  "type": "object"')
    const dir = directory('refused-on-push', {
      'com.acme/same/jsonschema/1-0-0': same,
      'com.acme/cart/jsonschema/1-0-0': twice,
      'com.acme/big/jsonschema/1-0-0': padded.replaceAll('"cart"', '"big"'),
    })
    // The lint's bound follows the API's body limit, with room for the request around the schema.
    expect(MAX_SCHEMA_FILE_BYTES).toBe(BODY_LIMITS.api - 1024)
    expect(same.match(/"type": "object"/g)).toHaveLength(2)
    const outcome = await lintSchemasCommand(dir, {})
    expect(outcome.exitCode).toBe(1)
    const lines = outcome.output.trimEnd().split('\n')
    const line = twice.split('\n').findIndex((text) => text.includes('"quantity": {')) + 2
    expect(lines, outcome.output).toContain(
      `${dir}/com.acme/cart/jsonschema/1-0-0:${line}: error json the key "quantity" is written twice in one object, with different values`,
    )
    expect(
      lines.find((text) =>
        text.startsWith(`${dir}/com.acme/big/jsonschema/1-0-0:1: error limits the file is`),
      ),
    ).toBeDefined()
    expect(lines.filter((text) => text.includes('com.acme/same/'))).toEqual([])
  })

  it('refuses what the API refuses in any body: a number out of range, U+0000', async () => {
    const infinite = cart('1-0-0', 10).replace('"maximum": 10', '"maximum": 1e400')
    const nul = cart('1-0-0', 10)
      .replaceAll('"cart"', '"nul"')
      .replace('"type": "object"', '"title": "a\\u0000b",\n  "type": "object"')
    const dir = directory('unstorable', {
      'com.acme/cart/jsonschema/1-0-0': infinite,
      'com.acme/nul/jsonschema/1-0-0': nul,
    })
    const outcome = await lintSchemasCommand(dir, {})
    expect(outcome.exitCode).toBe(1)
    const line = infinite.split('\n').findIndex((text) => text.includes('1e400')) + 1
    expect(outcome.output).toContain(
      `${dir}/com.acme/cart/jsonschema/1-0-0:${line}: error json /properties/quantity/maximum is a number out of range (JSON numbers must be finite; it reads as Infinity)`,
    )
    expect(outcome.output).toMatch(
      /com\.acme\/nul\/jsonschema\/1-0-0:\d+: error json \/title contains the NUL character/,
    )
  })

  it('reads what links inside the directory lead to where it is, names links outside it and misnamed schema files, in the same order on every machine', async () => {
    const outside = directory('outside', { 'com.acme/cart/jsonschema/1-0-0': cart('1-0-0', 10) })
    const dir = directory('links', {
      // Its self names another schema: a finding, to show the order of files (Z before a).
      'com.acme/Zeta/jsonschema/1-0-0': cart('1-0-0', 10),
      'com.acme/ev/jsonschema/1-0-0': cart('1-0-0', 10).replaceAll('"cart"', '"ev"'),
      'com.acme/alpha/jsonschema/1-0-0.json': cart('1-0-0', 10),
    })
    // An alias that sorts first: ev is still read as ev, not renamed by it.
    symlinkSync(path.join(dir, 'com.acme/ev'), path.join(dir, 'com.acme/aa'))
    symlinkSync(path.join(dir, 'com.acme'), path.join(dir, 'linked'))
    symlinkSync(path.join(outside, 'com.acme'), path.join(dir, 'elsewhere'))
    // A loop, never walked.
    symlinkSync(dir, path.join(dir, 'com.acme/again'))
    const outcome = await lintSchemasCommand(dir, {})
    expect(outcome.exitCode).toBe(1)
    expect(outcome.output.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        /^.*\/links\/com\.acme\/Zeta\/jsonschema\/1-0-0:\d+: error path \/self\/name: "cart" differs/,
      ),
      `${dir}/com.acme/alpha/jsonschema/1-0-0.json:1: warning file in a jsonschema folder but not named as a SchemaVer (1-0-0): not read`,
      `${dir}/elsewhere:1: error file a link to a place outside the directory (or to nothing): not read`,
      '2 schemas: 2 errors, 1 warnings, 0 info',
    ])
    // A directory that is itself reached through a link is read through it.
    expect((await lintSchemasCommand(path.join(root, 'links/linked'), {})).output).toContain(
      'Zeta/jsonschema/1-0-0',
    )
  })

  it("points a finding about an object's property at the property's line", async () => {
    const text = `${JSON.stringify(
      objectSchema('com.acme', 'nested', '1-0-0', {
        outer: {
          description: 'outer',
          type: 'object',
          properties: { 'b~/x': { description: 'b', type: 'string', maxLength: 5 } },
        },
      }),
      null,
      2,
    )}\n`
    const dir = directory('nested', { 'com.acme/nested/jsonschema/1-0-0': text })
    const line = text.split('\n').findIndex((l) => l.includes('"b~/x"')) + 1
    expect((await lintSchemasCommand(dir, {})).output).toContain(
      `${dir}/com.acme/nested/jsonschema/1-0-0:${line}: warning bqDisallowedCharacters /properties/outer: property "b~/x" has characters`,
    )
  })

  it('refuses a directory that is not there, and a format it does not know', async () => {
    expect(await lintSchemasCommand(path.join(root, 'missing'), {})).toEqual({
      exitCode: 2,
      output: '',
      errorOutput: `floe: ${path.join(root, 'missing')} is not a directory\n`,
    })
    expect((await lintSchemasCommand(root, { format: 'xml' })).exitCode).toBe(2)
  })
})
