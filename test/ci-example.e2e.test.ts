import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { objectSchema } from './support/registry-builders.js'

// Issue 31, item 5: docs/ci.md's job, run as the script it is, with Floe's own commands.

const SCRIPT = fileURLToPath(new URL('../examples/ci/check-tracking.sh', import.meta.url))
const FLOE = fileURLToPath(new URL('../dist/floe.mjs', import.meta.url))
const root = mkdtempSync(path.join(tmpdir(), 'floe-ci-example-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** The app's tests, as a command: one self-describing event of `com.acme/signup`, sent to the collector. */
const appTests = (plan: string) =>
  `node -e 'const e={schema:"iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-0",data:{schema:"iglu:com.acme/signup/jsonschema/1-0-0",data:{plan:"${plan}"}}};fetch(process.env.FLOE_COLLECTOR_URL+"/i?e=ue&p=web&tv=app-1&ue_pr="+encodeURIComponent(JSON.stringify(e))).then(r=>process.exit(r.status===200?0:1))'`

/** Runs the script as a CI job would, with a fresh schemas directory and data directory. */
async function runScript(name: string, plan: string) {
  const schemas = path.join(root, name, 'schemas')
  mkdirSync(path.join(schemas, 'com.acme/signup/jsonschema'), { recursive: true })
  const signup = objectSchema(
    'com.acme',
    'signup',
    '1-0-0',
    { plan: { type: 'string', enum: ['free', 'pro'] } },
    { required: ['plan'] },
  )
  writeFileSync(
    path.join(schemas, 'com.acme/signup/jsonschema/1-0-0'),
    `${JSON.stringify(signup, null, 2)}\n`,
  )
  const port = await freePort()
  return new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      'bash',
      [SCRIPT],
      {
        env: {
          PATH: process.env.PATH ?? '',
          FLOE: `${process.execPath} ${FLOE}`,
          SCHEMAS: schemas,
          APP_TESTS: appTests(plan),
          FLOE_DATA_DIR: path.join(root, name, 'data'),
          PORT: String(port),
        },
        timeout: 120_000,
      },
      (error, stdout, stderr) =>
        resolve({
          code: error === null ? 0 : ((error as { code?: number }).code ?? -1),
          output: stdout + stderr,
        }),
    )
  })
}

describe('the CI example', () => {
  it(
    'passes when the app sends what its schemas allow, and fails naming the bad event otherwise',
    { timeout: 180_000 },
    async () => {
      const good = await runScript('good', 'pro')
      expect(good.output).toContain('1 deployed to DEV, 1 to PROD, 0 already there')
      expect(good.output).toContain('"passed":true')
      expect(good.code).toBe(0)
      const bad = await runScript('bad', 'enterprise')
      expect(bad.output).toContain('"passed":false')
      expect(bad.output).toMatch(/"check":"bad"/)
      expect(bad.code).not.toBe(0)
    },
  )
})
