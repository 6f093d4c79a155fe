import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { IGLU_CENTRAL, sharedDataPresent } from './support/shared-data.js'

// Issue 31, item 1, end to end: `floe schemas lint` as a user runs it, over Iglu Central's 660
// JSON Schemas and over a directory with every kind of problem.

const FLOE = fileURLToPath(new URL('../dist/floe.mjs', import.meta.url))
const run = promisify(execFile)

/** Runs `floe schemas lint …`: its exit code and what it printed. */
async function lint(...args: string[]) {
  try {
    const { stdout } = await run(process.execPath, [FLOE, 'schemas', 'lint', ...args], {
      maxBuffer: 64 * 1024 * 1024,
    })
    return { code: 0, stdout }
  } catch (error) {
    const failed = error as { code?: number; stdout?: string }
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '' }
  }
}

const root = mkdtempSync(path.join(tmpdir(), 'floe-lint-e2e-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('floe schemas lint, end to end', () => {
  it(
    "lints Iglu Central's JSON Schemas and reports what it finds",
    { timeout: 180_000 },
    async () => {
      if (!sharedDataPresent) throw new Error(`Iglu Central is not at ${IGLU_CENTRAL}`)
      const started = Date.now()
      const { code, stdout } = await lint(IGLU_CENTRAL, '--format', 'json')
      const seconds = (Date.now() - started) / 1000
      const { findings, summary } = JSON.parse(stdout) as {
        findings: { file: string; severity: string; rule: string; message: string }[]
        summary: { files: number; errors: number; warnings: number; info: number }
      }
      const byRule = new Map<string, number>()
      for (const f of findings)
        byRule.set(`${f.severity} ${f.rule}`, (byRule.get(`${f.severity} ${f.rule}`) ?? 0) + 1)
      console.info(
        `floe schemas lint over Iglu Central: ${summary.files} schemas in ${seconds.toFixed(1)} s; ${summary.errors} errors, ${summary.warnings} warnings, ${summary.info} info\n` +
          [...byRule]
            .sort((a, b) => b[1] - a[1])
            .map(([rule, n]) => `  ${n} × ${rule}`)
            .join('\n') +
          `\n` +
          findings
            .filter((f) => f.severity === 'error')
            .map((f) => `  ${f.file}: ${f.rule} ${f.message.slice(0, 160)}`)
            .join('\n'),
      )
      expect(summary.files).toBe(660)
      // The registry accepts every one of them (test/iglu-central.http.test.ts): no schema-level error.
      expect(
        findings.filter((f) => f.severity === 'error' && !f.rule.startsWith('version')),
      ).toEqual([])
      // Iglu Central's own history numbers some revisions as additions: each is named, with a witness.
      for (const f of findings.filter((f) => f.severity === 'error'))
        expect(f).toMatchObject({
          rule: 'versionBump',
          message: expect.stringMatching(/ is valid under /),
        })
      expect(code).toBe(summary.errors > 0 ? 1 : 0)
    },
  )

  it('exits with 1 for a broken directory, 0 for a clean one, and 1 on warnings with --strict', async () => {
    const write = (dir: string, file: string, value: unknown) => {
      const full = path.join(root, dir, file)
      mkdirSync(path.dirname(full), { recursive: true })
      writeFileSync(full, typeof value === 'string' ? value : JSON.stringify(value, null, 2))
    }
    const schema = (version: string, extra: object = {}) => ({
      $schema:
        'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#',
      self: { vendor: 'com.acme', name: 'search', format: 'jsonschema', version },
      description: 'A search',
      type: 'object',
      properties: { term: { description: 'The term', type: 'string', maxLength: 100 } },
      additionalProperties: false,
      ...extra,
    })
    write('clean', 'com.acme/search/jsonschema/1-0-0', schema('1-0-0'))
    write('clean', 'com.acme/search/jsonschema/2-0-0', schema('2-0-0', { required: ['term'] }))
    const clean = await lint(path.join(root, 'clean'))
    expect([clean.code, clean.stdout]).toEqual([0, '2 schemas: 0 errors, 0 warnings, 0 info\n'])

    write('broken', 'com.acme/search/jsonschema/1-0-0', schema('1-0-0'))
    write('broken', 'com.acme/search/jsonschema/1-0-1', schema('1-0-1', { required: ['term'] }))
    write('broken', 'com.acme/search/jsonschema/1-2-0', schema('1-2-0'))
    write('broken', 'com.acme/other/jsonschema/1-0-0', '{ "self": ')
    const broken = await lint(path.join(root, 'broken'))
    expect(broken.code).toBe(1)
    expect(broken.stdout).toMatch(/other\/jsonschema\/1-0-0:1: error json not JSON: /)
    expect(broken.stdout).toMatch(
      /search\/jsonschema\/1-0-1:\d+: error versionBump .* 1-1-0 would say so/,
    )
    expect(broken.stdout).toMatch(
      /search\/jsonschema\/1-2-0:\d+: error versionGap .*needs a version 1-1-\* first/,
    )

    write('loose', 'com.acme/search/jsonschema/1-0-0', {
      ...schema('1-0-0'),
      properties: { term: { type: 'string' } },
    })
    expect((await lint(path.join(root, 'loose'))).code).toBe(0)
    expect((await lint(path.join(root, 'loose'), '--strict')).code).toBe(1)
  })
})
