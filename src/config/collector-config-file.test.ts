import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { readCollectorConfigFile, withCollectorFile } from './collector-config-file.js'
import { loadConfig } from './config.js'

const FIXTURE = fileURLToPath(
  new URL('../../test/fixtures/micro-config/micro.conf', import.meta.url),
)
const dir = mkdtempSync(path.join(tmpdir(), 'floe-collector-config-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let files = 0
function conf(text: string): string {
  const file = path.join(dir, `c${files++}.conf`)
  writeFileSync(file, text)
  return file
}

describe('--collector-config', () => {
  it("reads the JavaScript tracker suite's collector configuration: the keys Floe honours, and what it ignores", async () => {
    const { settings, ignored } = await readCollectorConfigFile(FIXTURE)
    expect(settings).toEqual({
      host: '0.0.0.0',
      port: '9090',
      collectorPath: [],
      cookie: true,
      cookieName: 'micro',
      cookieDomains: [],
      cookieSecure: 'off',
      cookieHttpOnly: 'off',
    })
    expect(ignored).toEqual([
      'akka',
      'collector.cookie.expiration',
      'collector.cookieBounce',
      'collector.cors',
      'collector.crossDomain',
      'collector.doNotTrackCookie',
      'collector.p3p',
      'collector.prometheusMetrics',
      'collector.redirectMacro',
      'collector.rootResponse',
      'collector.ssl',
      'collector.streams',
    ])
    const config = loadConfig(withCollectorFile({ port: '0' }, settings), {})
    expect(config.http).toMatchObject({ host: '0.0.0.0', port: 0 })
    expect(config.inspection.cookie).toEqual({
      enabled: true,
      name: 'micro',
      domain: null,
      domains: [],
      fallbackDomain: null,
      secure: false,
      httpOnly: false,
      sameSite: 'None',
    })
  })

  it('takes the settings at the top level too, and redirects, paths and cookie attributes', async () => {
    const { settings } = await readCollectorConfigFile(
      conf(`
        port = 8080
        enableDefaultRedirect = true
        redirectDomains = ["shop.test"]
        paths { "/com.acme/track" = "/com.snowplowanalytics.snowplow/tp2" }
        cookie { name = sid, domains = [acme.test], fallbackDomain = "other.test", sameSite = Lax }
      `),
    )
    const config = loadConfig(withCollectorFile({}, settings), {})
    expect(config.http.port).toBe(8080)
    expect(config.inspection.redirects).toEqual({ enabled: true, domains: ['shop.test'] })
    expect(config.inspection.collectorPaths).toEqual([
      { from: '/com.acme/track', to: '/com.snowplowanalytics.snowplow/tp2' },
    ])
    expect(config.inspection.cookie).toMatchObject({
      name: 'sid',
      domains: ['acme.test'],
      fallbackDomain: 'other.test',
      sameSite: 'Lax',
      secure: true,
      httpOnly: true,
    })
  })

  it('lets flags given on the command line win over the file, and only --no-cookie turn the cookie off', async () => {
    const { settings } = await readCollectorConfigFile(
      conf('collector { port = 8080, cookie { enabled = false, name = "micro" } }'),
    )
    const flags = withCollectorFile({ port: '7070', cookie: true, cookieName: 'mine' }, settings)
    expect(flags).toMatchObject({ port: '7070', cookie: false, cookieName: 'mine' })
    expect(withCollectorFile({ cookie: false }, { cookie: true }).cookie).toBe(false)
  })

  it('refuses what Floe cannot honour, naming it: includes, features turned on, wrong types, bad HOCON', async () => {
    const refusal = async (text: string) =>
      readCollectorConfigFile(conf(text)).then(
        () => 'accepted',
        (error: Error) => error.message,
      )
    expect(await refusal('include "other.conf"\ncollector { port = 1 }')).toMatch(
      /include statements are not supported/,
    )
    expect(await refusal('collector { cookieBounce { enabled = true } }')).toMatch(
      /collector\.cookieBounce\.enabled is true, but Floe has no cookie bounce/,
    )
    expect(await refusal('collector { ssl { enable = true } }')).toMatch(/--tls-cert/)
    expect(await refusal('collector { cookie { secure = maybe } }')).toMatch(
      /collector\.cookie\.secure must be true or false/,
    )
    expect(await refusal('collector { paths = [1] }')).toMatch(/collector\.paths must be/)
    expect(await refusal('collector { port = ')).toMatch(/is not valid HOCON/)
    expect(await refusal('# a comment that says include "x"\nport = 1')).toBe('accepted')
    expect(await refusal('name = "include \\"x\\""')).toBe('accepted')
    await expect(readCollectorConfigFile(path.join(dir, 'missing.conf'))).rejects.toThrow(
      /cannot be read \(ENOENT\)/,
    )
    // A folder was read as a file, and failed with a stack trace.
    await expect(readCollectorConfigFile(dir)).rejects.toThrow(/: is not a file$/)
    // The collector spells HSTS's switch `enable`: it was ignored, and no header sent.
    expect(await refusal('collector { hsts { enable = true, maxAge = 1 year } }')).toMatch(
      /collector\.hsts\.enable is true, but Floe has no HSTS/,
    )
  })

  it('takes redirect domains without redirects, as Micro does, and leaves them unused', async () => {
    const { settings } = await readCollectorConfigFile(
      conf('collector { enableDefaultRedirect = false, redirectDomains = ["example.com"] }'),
    )
    expect(settings.redirectDomain).toBeUndefined()
    expect(loadConfig(withCollectorFile({}, settings), {}).inspection.redirects).toEqual({
      enabled: false,
      domains: [],
    })
  })
})
