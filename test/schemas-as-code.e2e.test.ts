import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFloe, type FloeProcess } from './support/floe-process.js'
import { objectSchema } from './support/registry-builders.js'

// Issue 31, item 2, end to end: `floe schemas push` and `pull` as a CI job runs them, against
// `floe start`, with the server and key in snowtype's variables.

const FLOE = fileURLToPath(new URL('../dist/floe.mjs', import.meta.url))
const run = promisify(execFile)
const BOOTSTRAP = {
  FLOE_BOOTSTRAP_ORG_ID: '6d1f3a2b-8c4e-4f5a-9b7d-2e3c4a5b6c7d',
  FLOE_BOOTSTRAP_API_KEY_ID: '1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d',
  FLOE_BOOTSTRAP_API_KEY: 'schemas-as-code-e2e-secret',
}

const root = mkdtempSync(path.join(tmpdir(), 'floe-sac-e2e-'))

describe('floe schemas push and pull, end to end', () => {
  let floe: FloeProcess
  let env: Record<string, string>

  beforeAll(async () => {
    floe = await startFloe([], { FLOE_DATA_DIR: path.join(root, 'data'), ...BOOTSTRAP })
    env = {
      PATH: process.env.PATH ?? '',
      SNOWPLOW_CONSOLE_API_URL: `${floe.baseUrl}/api/msc`,
      SNOWPLOW_CONSOLE_ORG_ID: BOOTSTRAP.FLOE_BOOTSTRAP_ORG_ID,
      SNOWPLOW_CONSOLE_API_KEY_ID: BOOTSTRAP.FLOE_BOOTSTRAP_API_KEY_ID,
      SNOWPLOW_CONSOLE_API_KEY: BOOTSTRAP.FLOE_BOOTSTRAP_API_KEY,
    }
  })
  afterAll(async () => {
    await floe?.stop('SIGTERM')
    rmSync(root, { recursive: true, force: true })
  })

  const floeCli = async (...args: string[]) => {
    try {
      return { code: 0, ...(await run(process.execPath, [FLOE, 'schemas', ...args], { env })) }
    } catch (error) {
      const failed = error as { code?: number; stdout?: string; stderr?: string }
      return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' }
    }
  }

  it('pushes a directory to PROD, pushes nothing the second time, and pulls it back byte for byte', async () => {
    const files: Record<string, string> = {
      'com.acme/checkout/jsonschema/1-0-0': `${JSON.stringify(objectSchema('com.acme', 'checkout', '1-0-0', { total: { type: 'number', minimum: 0, maximum: 1e6 } }), null, 2)}\n`,
      'com.acme/checkout/jsonschema/1-0-1': `${JSON.stringify(objectSchema('com.acme', 'checkout', '1-0-1', { total: { type: 'number', minimum: 0, maximum: 1e6 }, coupon: { type: 'string', maxLength: 20 } }))}\n`,
    }
    const source = path.join(root, 'schemas')
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(source, file)), { recursive: true })
      writeFileSync(path.join(source, file), text)
    }
    expect(await floeCli('lint', source)).toMatchObject({ code: 0 })
    const plan = await floeCli('push', source, '--env', 'prod', '--dry-run')
    expect(plan.stdout).toBe(
      [
        'deploy DEV   iglu:com.acme/checkout/jsonschema/1-0-0',
        'deploy PROD  iglu:com.acme/checkout/jsonschema/1-0-0',
        'deploy DEV   iglu:com.acme/checkout/jsonschema/1-0-1',
        'deploy PROD  iglu:com.acme/checkout/jsonschema/1-0-1',
        'dry run: nothing pushed',
        '',
      ].join('\n'),
    )
    const pushed = await floeCli('push', source, '--env', 'prod')
    expect([pushed.code, pushed.stdout.trimEnd().split('\n').at(-1)]).toEqual([
      0,
      '2 deployed to DEV, 2 to PROD, 0 already there',
    ])
    const again = await floeCli('push', source, '--env', 'prod')
    expect(again.stdout).toBe(
      [
        'skip         iglu:com.acme/checkout/jsonschema/1-0-0: in PROD with this content',
        'skip         iglu:com.acme/checkout/jsonschema/1-0-1: in PROD with this content',
        '0 deployed to DEV, 0 to PROD, 2 already there',
        '',
      ].join('\n'),
    )
    const copy = path.join(root, 'pulled')
    const pulled = await floeCli('pull', copy, '--env', 'prod')
    expect(pulled.stdout.trimEnd().split('\n').at(-1)).toBe('2 written, 0 unchanged (PROD)')
    for (const [file, text] of Object.entries(files))
      expect(readFileSync(path.join(copy, file), 'utf8')).toBe(text)
    expect(
      (
        await floeCli(
          'diff',
          path.join(copy, 'com.acme/checkout/jsonschema/1-0-0'),
          path.join(copy, 'com.acme/checkout/jsonschema/1-0-1'),
        )
      ).code,
    ).toBe(0)
  })

  it('stops with the missing settings named when there is no key', async () => {
    const { code, stderr } = await run(
      process.execPath,
      [FLOE, 'schemas', 'pull', path.join(root, 'x')],
      {
        env: { PATH: env.PATH ?? '' },
      },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code?: number; stderr?: string }) => ({
        code: error.code,
        stderr: error.stderr ?? '',
      }),
    )
    expect(code).toBe(1)
    expect(stderr).toMatch(
      /SNOWPLOW_CONSOLE_API_URL[\s\S]*SNOWPLOW_CONSOLE_ORG_ID[\s\S]*SNOWPLOW_CONSOLE_API_KEY/,
    )
  })
})
