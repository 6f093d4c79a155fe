import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from './config.js'

// Settings a configuration audit found read wrongly, or checked only once the store was open.

const dir = mkdtempSync(path.join(tmpdir(), 'floe-config-paths-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('loadConfig, checking what it is given', () => {
  it('names the paths the enrichments and the resolver would read after the store opens', () => {
    const city = path.join(dir, 'City.mmdb')
    writeFileSync(city, '')
    mkdirSync(path.join(dir, 'enrichments'))
    expect(
      loadConfig({ geoDb: city, enrichments: path.join(dir, 'enrichments') }, {}).inspection,
    ).toMatchObject({ geoDatabase: city, enrichmentsDir: path.join(dir, 'enrichments') })
    expect(() =>
      loadConfig(
        {
          geoDb: path.join(dir, 'none.mmdb'),
          enrichments: city,
          iglu: dir,
          igluDir: [path.join(dir, 'schemas')],
        },
        {},
      ),
    ).toThrow(
      new ConfigError([
        `--enrichments (FLOE_ENRICHMENTS_DIR): ${city} is not a directory`,
        `--geo-db (FLOE_GEO_DB): ${path.join(dir, 'none.mmdb')} does not exist`,
        `--iglu (FLOE_IGLU_RESOLVER_CONFIG): ${dir} is not a file`,
        `--iglu-dir (FLOE_IGLU_DIRS): ${path.join(dir, 'schemas')} does not exist`,
      ]),
    )
  })

  it('lets the default headers timeout yield to a shorter request timeout', () => {
    expect(loadConfig({}, { FLOE_REQUEST_TIMEOUT_MS: '5000' }).http).toMatchObject({
      requestTimeoutMs: 5000,
      headersTimeoutMs: 5000,
    })
    expect(() =>
      loadConfig({}, { FLOE_REQUEST_TIMEOUT_MS: '5000', FLOE_HEADERS_TIMEOUT_MS: '6000' }),
    ).toThrow(/FLOE_HEADERS_TIMEOUT_MS \(6000\) must not be longer/)
  })

  it('takes a blank flag as not given: the variable says', () => {
    expect(
      loadConfig({ host: '', port: ' ' }, { HOST: '127.0.0.1', PORT: '9191' }).http,
    ).toMatchObject({
      host: '127.0.0.1',
      port: 9191,
    })
  })

  it('reads words whatever their case, as on/off switches are read', () => {
    const config = loadConfig(
      { logLevel: 'INFO' },
      { FLOE_IGLU_CENTRAL: 'OFF', FLOE_EVENT_STORAGE: 'Memory', FLOE_LOG_FORMAT: 'JSON' },
    )
    expect([config.log, config.inspection.igluCentralUrl, config.inspection.storage]).toEqual([
      { level: 'info', format: 'json' },
      null,
      { kind: 'memory' },
    ])
  })

  it('takes a destination that is an http(s) URL with a host', () => {
    expect(() => loadConfig({ outputJson: true, destination: 'http://' }, {})).toThrow(
      /--destination must be an http\(s\) URL/,
    )
    expect(
      loadConfig({ outputJson: true, destination: 'http://sink.test/events' }, {}).inspection
        .destination,
    ).toBe('http://sink.test/events')
  })
})
