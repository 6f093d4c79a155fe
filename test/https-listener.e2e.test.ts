import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { connect } from 'node:tls'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { floeCli, startFloe, type FloeProcess } from './support/floe-process.js'

// `floe start` with a certificate: a second listener over HTTPS serving the same routes (as Micro's
// port 9543), checked with the real certificate (test/fixtures/tls, made for localhost).

const TLS = fileURLToPath(new URL('./fixtures/tls/', import.meta.url))
const CERT = path.join(TLS, 'localhost.cert.pem')
const KEY = path.join(TLS, 'localhost.key.pem')
const PFX = path.join(TLS, 'localhost.p12')
const PASSPHRASE = 'floe-test-passphrase'

/** A request over HTTPS that trusts only the test certificate (and checks it names the host). */
function secureGet(url: string): Promise<{
  status: number
  body: string
  headers: Record<string, string | string[] | undefined>
}> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { ca: readFileSync(CERT) }, (response) => {
      let body = ''
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => (body += chunk))
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body, headers: response.headers }),
      )
    })
    sent.on('error', reject)
    sent.end()
  })
}

describe('floe start over HTTPS', () => {
  const cleanups: (() => Promise<unknown> | void)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })

  function dataDir(): Record<string, string> {
    const dir = mkdtempSync(path.join(tmpdir(), 'floe-https-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    return { FLOE_DATA_DIR: dir }
  }

  async function started(
    args: string[],
    env: Record<string, string>,
  ): Promise<{ floe: FloeProcess; secureUrl: string }> {
    const floe = await startFloe(args, env)
    cleanups.push(() => void floe.stop('SIGKILL'))
    const secureUrl = /and over HTTPS on (\S+)/.exec(floe.banner)?.[1] ?? ''
    expect(secureUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
    // The certificate is for localhost and 127.0.0.1; the test connects by name.
    return { floe, secureUrl: secureUrl.replace('127.0.0.1', 'localhost') }
  }

  it(
    'serves the same routes and store over HTTPS with a PEM certificate and key, and stops with an idle TLS connection open',
    { timeout: 60_000 },
    async () => {
      const { floe, secureUrl } = await started(
        ['--tls-cert', CERT, '--tls-key', KEY, '--tls-port', '0'],
        dataDir(),
      )
      expect(await secureGet(`${secureUrl}/health`)).toMatchObject({ status: 200, body: 'ok' })

      const tracked = await secureGet(
        `${secureUrl}/i?e=pv&p=web&tv=js-3&aid=secure&url=${encodeURIComponent('https://shop.test/')}`,
      )
      expect(tracked.status).toBe(200)
      expect(String(tracked.headers['set-cookie'])).toMatch(/^sp=[0-9a-f-]{36};.*Secure/)
      // One store behind both listeners.
      const good = (await (await fetch(`${floe.baseUrl}/micro/good`)).json()) as {
        event: { app_id: string }
      }[]
      expect(good.map((event) => event.event.app_id)).toEqual(['secure'])
      expect(JSON.parse((await secureGet(`${secureUrl}/micro/all`)).body)).toEqual({
        total: 1,
        good: 1,
        bad: 0,
      })

      // A client that connected over TLS and sent nothing must not hold the stop.
      const port = Number(new URL(secureUrl).port)
      const idle = connect({
        host: '127.0.0.1',
        port,
        servername: 'localhost',
        ca: readFileSync(CERT),
      })
      await new Promise<void>((resolve, reject) =>
        idle.once('secureConnect', resolve).once('error', reject),
      )
      cleanups.push(() => void idle.destroy())
      expect(await floe.stop('SIGTERM')).toBe(0)
    },
  )

  it(
    'takes a PKCS#12 file with its password in MICRO_SSL_CERT_PASSWORD, as Micro does',
    { timeout: 60_000 },
    async () => {
      const { secureUrl } = await started(['--tls-pfx', PFX, '--tls-port', '0'], {
        ...dataDir(),
        MICRO_SSL_CERT_PASSWORD: PASSPHRASE,
      })
      expect(await secureGet(`${secureUrl}/health`)).toMatchObject({ status: 200, body: 'ok' })
    },
  )

  it(
    'refuses to start with a certificate it cannot use, saying why, before opening the store',
    { timeout: 60_000 },
    async () => {
      const start = (args: string[], env: Record<string, string>) =>
        floeCli(['start', '--host', '127.0.0.1', '--port', '0', '--tls-port', '0', ...args], env)
      const env = dataDir()
      const wrongPassword = await start(['--tls-pfx', PFX], {
        ...env,
        FLOE_TLS_PASSPHRASE: 'not it',
      })
      expect([wrongPassword.code, wrongPassword.stderr]).toEqual([
        1,
        expect.stringMatching(
          /^floe: Invalid configuration:\n {2}- --tls-pfx \S+ cannot be used: .*\(is its password FLOE_TLS_PASSPHRASE, or MICRO_SSL_CERT_PASSWORD, right\?\)/,
        ),
      ])
      // Nothing was opened: the data directory is still empty.
      expect(readdirOrEmpty(env.FLOE_DATA_DIR ?? '')).toEqual([])
      const missing = await start(
        ['--tls-cert', path.join(TLS, 'nothing.pem'), '--tls-key', KEY],
        dataDir(),
      )
      expect([missing.code, missing.stderr]).toEqual([
        1,
        expect.stringContaining(
          `cannot read the certificate (--tls-cert) ${path.join(TLS, 'nothing.pem')}`,
        ),
      ])
      const swapped = await start(['--tls-cert', KEY, '--tls-key', CERT], dataDir())
      expect([swapped.code, swapped.stderr]).toEqual([
        1,
        expect.stringContaining(
          `the TLS certificate and key (--tls-cert ${KEY}, --tls-key ${CERT}) cannot be used`,
        ),
      ])
      expect((await start(['--tls-cert', CERT], dataDir())).stderr).toContain(
        '--tls-cert (FLOE_TLS_CERT) and --tls-key (FLOE_TLS_KEY) go together',
      )
    },
  )
})

function readdirOrEmpty(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}
