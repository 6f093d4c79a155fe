import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { tierInvariantTestFiles } from './support/tier-varying-files.js'

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true })
})

/** A tree of files under a new folder, by relative path. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'floe-tiers-'))
  roots.push(root)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

describe('tierInvariantTestFiles', () => {
  it('keeps a test whose imports never read the tier, and drops one that reaches it at any depth', () => {
    const root = tree({
      'test/alike.test.ts': "import { a } from './support/plain.js'\n",
      'test/deep.test.ts': "import { b } from './support/middle.js'\n",
      'test/direct.test.ts': 'const volume = process.env.FLOE_TEST_TIER\n',
      'test/database.test.ts': "const lazy = await import('./support/databases.js')\n",
      'test/support/plain.ts': 'export const a = 1\n',
      'test/support/middle.ts': "export { c as b } from './tier.js'\n",
      'test/support/tier.ts': "export const c = process.env.FLOE_TEST_TIER === 'full'\n",
      'test/support/databases.ts': 'export const url = process.env.TEST_DATABASE_URL\n',
      'src/unit.test.ts': "import { a } from '../test/support/plain.js'\n",
    })
    expect(tierInvariantTestFiles(root, ['src', 'test']).sort()).toEqual([
      'src/unit.test.ts',
      'test/alike.test.ts',
    ])
  })

  it('follows a cycle of imports to a module that reads the tier', () => {
    const root = tree({
      'test/cycle.test.ts': "import './support/one.js'\n",
      'test/support/one.ts': "import { two } from './two.js'\nexport const one = 1\n",
      'test/support/two.ts':
        "import { one } from './one.js'\nimport { url } from './three.js'\nexport const two = 2\n",
      'test/support/three.ts': 'export const url = process.env.TEST_DATABASE_URL\n',
    })
    expect(tierInvariantTestFiles(root, ['test'])).toEqual([])
  })

  it("finds this repository's storage and fuzz tests varying, and a plain HTTP test alike", () => {
    const root = fileURLToPath(new URL('..', import.meta.url))
    const alike = tierInvariantTestFiles(root, ['src', 'test', 'web/src'])
    expect(alike).toContain('test/limits.http.test.ts')
    expect(alike).toContain('src/db/pglite-template.test.ts')
    expect(alike).not.toContain('test/storage.test.ts')
    expect(alike).not.toContain('test/collector-fuzz.test.ts')
    expect(alike).not.toContain('test/micro-api.http.test.ts')
  })
})
