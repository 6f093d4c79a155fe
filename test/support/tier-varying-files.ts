import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

/**
 * Which test files may run differently in the full tier than in the fast one, found by reading
 * them: a file varies when it, or a module it imports (relative imports, followed through every
 * level), reads the tier's environment (FLOE_TEST_TIER: fuzz volumes, storage backends;
 * TEST_DATABASE_URL: PostgreSQL). Anything else runs the same in both tiers, so once the fast tier
 * has passed in the same CI run, the full tier need not run it again (vitest.config.ts).
 *
 * Conservative by construction: a mention of either name, even in a comment, makes a file vary.
 */
const READS_THE_TIER = /FLOE_TEST_TIER|TEST_DATABASE_URL/
const RELATIVE_IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.git', 'test-output'])

/** The module a relative specifier names: `./x.js` is `./x.ts` in the sources. */
function moduleFile(from: string, specifier: string): string | null {
  const target = resolve(dirname(from), specifier)
  const candidates = [target, target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx')]
  return (
    candidates.find((candidate) => candidate.match(/\.[cm]?[jt]sx?$/) && existsSync(candidate)) ??
    null
  )
}

/** Every `*.test.ts(x)` under `folder`. */
function testFilesUnder(folder: string): string[] {
  if (!existsSync(folder)) return []
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : testFilesUnder(path)
    return /\.test\.tsx?$/.test(entry.name) ? [path] : []
  })
}

/** The test files under `folders` of `root` (paths relative to it) that run the same in both tiers. */
export function tierInvariantTestFiles(root: string, folders: readonly string[]): string[] {
  const tests = folders.flatMap((folder) => testFilesUnder(join(root, folder)))
  // Every module the tests reach, with the modules that import it; then, from those that read the
  // tier, back up through their importers: what is reached so varies.
  const importers = new Map<string, string[]>()
  const readsTheTier: string[] = []
  const seen = new Set<string>(tests)
  const pending = [...tests]
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    const text = readFileSync(file, 'utf8')
    if (READS_THE_TIER.test(text)) readsTheTier.push(file)
    for (const match of text.matchAll(RELATIVE_IMPORT)) {
      const imported = moduleFile(file, match[1] as string)
      if (imported === null) continue
      importers.set(imported, [...(importers.get(imported) ?? []), file])
      if (!seen.has(imported)) {
        seen.add(imported)
        pending.push(imported)
      }
    }
  }
  const varying = new Set(readsTheTier)
  const upward = [...readsTheTier]
  for (let file = upward.pop(); file !== undefined; file = upward.pop()) {
    for (const importer of importers.get(file) ?? []) {
      if (!varying.has(importer)) {
        varying.add(importer)
        upward.push(importer)
      }
    }
  }
  return tests.filter((file) => !varying.has(file)).map((file) => relative(root, file))
}
