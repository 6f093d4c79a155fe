import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig, parseTtl } from './config.js'

describe('loadConfig', () => {
  it("defaults to 0.0.0.0:9090, PGlite in ./.floe, one-hour tokens and the reference collector's connection limits", () => {
    const config = loadConfig({}, {})
    expect(config.http).toEqual({
      host: '0.0.0.0',
      port: 9090,
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 1024,
      maxConnectionsPerAddress: 256,
      tls: null,
    })
    expect(config.inspection.memoryBytes).toEqual({ good: 512 * 2 ** 20, bad: 512 * 2 ** 20 })
    expect(config.db).toMatchObject({ kind: 'pglite', dataDir: expect.stringMatching(/\.floe$/) })
    expect(config.auth.tokenTtlSeconds).toBe(3600)
    expect(config.bootstrap).toBeNull()
    expect(Object.isFrozen(config.http)).toBe(true)
  })

  it('lets flags win over environment variables', () => {
    const config = loadConfig(
      { port: '7000', dataDir: '/tmp/a', tokenTtl: '15m' },
      { PORT: '8000', FLOE_DATA_DIR: '/tmp/b', FLOE_TOKEN_TTL: '1' },
    )
    expect(config.http.port).toBe(7000)
    expect(config.db).toEqual({
      kind: 'pglite',
      dataDir: '/tmp/a',
      sharedBuffersMb: 16,
      optimizeWasm: false,
    })
    expect(config.auth.tokenTtlSeconds).toBe(900)
  })

  it('reads the embedded database memory settings, and names a bad one', () => {
    const config = loadConfig(
      {},
      {
        FLOE_PGLITE_SHARED_BUFFERS_MB: '64',
        FLOE_PGLITE_OPTIMIZE: 'ON',
        FLOE_WORKER_IDLE_MS: '5000',
      },
    )
    expect(config.db).toMatchObject({ sharedBuffersMb: 64, optimizeWasm: true })
    expect(config.workers).toMatchObject({ eager: false, idleMs: 5000 })
    expect(() => loadConfig({}, { FLOE_PGLITE_OPTIMIZE: 'maybe' })).toThrow(
      /FLOE_PGLITE_OPTIMIZE must be on or off/,
    )
    expect(() => loadConfig({}, { FLOE_PGLITE_SHARED_BUFFERS_MB: '0' })).toThrow(
      /FLOE_PGLITE_SHARED_BUFFERS_MB/,
    )
  })

  it('uses a PostgreSQL server when DATABASE_URL is set', () => {
    expect(loadConfig({}, { DATABASE_URL: 'postgres://u@h/db' }).db).toEqual({
      kind: 'postgres',
      url: 'postgres://u@h/db',
    })
    const unreadable = () => loadConfig({}, { DATABASE_URL: 'postgres://u:pw@h:abc/db' })
    expect(unreadable).toThrow(/DATABASE_URL is not a URL \(postgres:\/\/user:password@host/)
    expect(unreadable).not.toThrow(/pw/)
  })

  it('reports every problem at once', () => {
    const env = {
      PORT: 'x',
      FLOE_TOKEN_TTL: '-1',
      DATABASE_URL: 'mysql://x',
      FLOE_JWT_SECRET: 'short',
      FLOE_BOOTSTRAP_ORG_ID: 'a',
    }
    try {
      loadConfig({}, env)
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as ConfigError).problems).toHaveLength(5)
    }
  })

  it('requires the three bootstrap variables together, with UUIDs', () => {
    const good = {
      FLOE_BOOTSTRAP_ORG_ID: '0B7E1F4E-5C1A-4C52-9D6B-3F2F8F0D1A11',
      FLOE_BOOTSTRAP_API_KEY_ID: '7d8d9a61-2b43-4f0e-8d1e-2c4b7a9e0c22',
      FLOE_BOOTSTRAP_API_KEY: 'a-long-enough-secret',
    }
    expect(loadConfig({}, good).bootstrap?.organizationId).toBe(
      '0b7e1f4e-5c1a-4c52-9d6b-3f2f8f0d1a11',
    )
    expect(() => loadConfig({}, { ...good, FLOE_BOOTSTRAP_API_KEY_ID: 'nope' })).toThrow(
      /FLOE_BOOTSTRAP_API_KEY_ID must be a UUID/,
    )
  })

  it('reads the enrichments to enable from --enrich and --geo-db, else FLOE_ENRICH and FLOE_GEO_DB', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'floe-config-'))
    const [city, other] = ['City.mmdb', 'GeoLite2-City.mmdb'].map((name) => {
      writeFileSync(path.join(dir, name), '')
      return path.join(dir, name)
    }) as [string, string]
    expect(loadConfig({}, {}).inspection).toMatchObject({ enrich: [], geoDatabase: null })
    const flags = loadConfig(
      { enrich: ['ua_parser_config', ' anon_ip ', 'ua_parser_config'], geoDb: city },
      { FLOE_ENRICH: 'referer_parser', FLOE_GEO_DB: '/x.mmdb' },
    )
    expect(flags.inspection.enrich).toEqual(['ua_parser_config', 'anon_ip'])
    expect(flags.inspection.geoDatabase).toBe(city)
    const env = loadConfig(
      {},
      { FLOE_ENRICH: 'referer_parser, campaign_attribution,', FLOE_GEO_DB: other },
    )
    expect(env.inspection).toMatchObject({
      enrich: ['referer_parser', 'campaign_attribution'],
      geoDatabase: other,
    })
    rmSync(dir, { recursive: true })
  })

  it('parses token lifetimes with units', () => {
    const problems: string[] = []
    expect([
      parseTtl('90', problems),
      parseTtl('90s', problems),
      parseTtl('2h', problems),
      parseTtl('1d', problems),
    ]).toEqual([90, 90, 7200, 86400])
    expect(problems).toEqual([])
    parseTtl('0', problems)
    parseTtl('1w', problems)
    expect(problems).toHaveLength(2)
  })

  it("looks schemas up on Iglu Central and its mirror by default, as Micro's default resolver does; on neither when off, and not on the mirror of another address", () => {
    expect(loadConfig({}, {}).inspection).toMatchObject({
      igluCentralUrl: 'http://iglucentral.com',
      igluCentralMirrorUrl: 'http://mirror01.iglucentral.com',
    })
    expect(loadConfig({ igluCentral: false }, {}).inspection).toMatchObject({
      igluCentralUrl: null,
      igluCentralMirrorUrl: null,
    })
    expect(loadConfig({}, { FLOE_IGLU_CENTRAL: 'http://127.0.0.1:1/' }).inspection).toMatchObject({
      igluCentralUrl: 'http://127.0.0.1:1/',
      igluCentralMirrorUrl: null,
    })
  })

  it('logs as JSON lines, for people, or by whether the log goes to a terminal', () => {
    expect(loadConfig({}, {}).log).toEqual({ level: 'info', format: 'auto' })
    expect(loadConfig({ logFormat: 'pretty' }, { FLOE_LOG_FORMAT: 'json' }).log.format).toBe(
      'pretty',
    )
    expect(loadConfig({}, { FLOE_LOG_FORMAT: 'json' }).log.format).toBe('json')
    expect(() => loadConfig({ logFormat: 'yaml' }, {})).toThrow(
      /log format \(--log-format, FLOE_LOG_FORMAT\) must be one of auto, json, pretty \(got "yaml"\)/,
    )
  })

  it('keeps inspected events in memory unless --storage postgres', () => {
    expect(loadConfig({}, {}).inspection.storage).toEqual({ kind: 'memory' })
    expect(loadConfig({ storage: 'postgres' }, {}).inspection.storage).toEqual({
      kind: 'postgres',
      url: null,
      ttlSeconds: 86_400,
      cleanupIntervalSeconds: 60,
      maxBytesPerList: 2 ** 30,
    })
    const env = {
      FLOE_EVENT_STORAGE: 'postgres',
      FLOE_EVENTS_DATABASE_URL: 'postgres://u@h/events',
      FLOE_EVENTS_TTL: '7d',
      FLOE_EVENTS_CLEANUP_INTERVAL: '5m',
      FLOE_EVENTS_MAX_BYTES: '512MiB',
    }
    expect(loadConfig({}, env).inspection.storage).toEqual({
      kind: 'postgres',
      url: 'postgres://u@h/events',
      ttlSeconds: 604_800,
      cleanupIntervalSeconds: 300,
      maxBytesPerList: 512 * 2 ** 20,
    })
    expect(loadConfig({ eventsMaxBytes: '4 gib' }, env).inspection.storage).toMatchObject({
      maxBytesPerList: 4 * 2 ** 30,
    })
    expect(loadConfig({ eventsMaxBytes: '2000000' }, env).inspection.storage).toMatchObject({
      maxBytesPerList: 2_000_000,
    })
    expect(
      loadConfig({ eventsTtl: '30m', eventsDatabaseUrl: 'postgresql://x/y' }, env).inspection
        .storage,
    ).toMatchObject({ url: 'postgresql://x/y', ttlSeconds: 1800 })
  })

  it('runs the embedded cluster in a thread of its own when it keeps inspected events', () => {
    expect(loadConfig({}, {}).db).not.toHaveProperty('ownThread')
    expect(loadConfig({ storage: 'postgres' }, {}).db).toMatchObject({
      kind: 'pglite',
      ownThread: true,
    })
    // Events in a database of their own, or a server for everything: the cluster stays in process.
    expect(
      loadConfig({ storage: 'postgres', eventsDatabaseUrl: 'postgres://u@h/events' }, {}).db,
    ).not.toHaveProperty('ownThread')
    expect(loadConfig({ storage: 'postgres' }, { DATABASE_URL: 'postgres://u@h/floe' }).db).toEqual(
      { kind: 'postgres', url: 'postgres://u@h/floe' },
    )
  })

  it('names the field of each event storage problem', () => {
    const problems = (
      flags: Parameters<typeof loadConfig>[0],
      env: Record<string, string> = {},
    ) => {
      try {
        loadConfig(flags, env)
        return []
      } catch (error) {
        return (error as ConfigError).problems
      }
    }
    expect(problems({ storage: 'redis' })).toEqual([
      'event storage (--storage, FLOE_EVENT_STORAGE) must be memory or postgres (got "redis")',
    ])
    expect(problems({ storage: 'postgres', eventsDatabaseUrl: 'mysql://x' })).toEqual([
      expect.stringMatching(
        /^events database URL \(--events-database-url, FLOE_EVENTS_DATABASE_URL\) must start with postgres:\/\//,
      ),
    ])
    expect(problems({ storage: 'postgres', eventsTtl: '30s' })).toEqual([
      'events TTL (--events-ttl, FLOE_EVENTS_TTL) must be between 60 and 315360000 seconds, optionally with s, m, h or d (got "30s")',
    ])
    expect(problems({ storage: 'postgres' }, { FLOE_EVENTS_CLEANUP_INTERVAL: '2d' })).toEqual([
      expect.stringContaining('FLOE_EVENTS_CLEANUP_INTERVAL must be between 1 and 86400 seconds'),
    ])
    expect(
      problems(
        { eventsTtl: '1h', eventsMaxBytes: '1GiB' },
        { FLOE_EVENTS_DATABASE_URL: 'postgres://x/y' },
      ),
    ).toEqual([
      'events database URL (--events-database-url, FLOE_EVENTS_DATABASE_URL) applies only to --storage postgres',
      'events TTL (--events-ttl, FLOE_EVENTS_TTL) applies only to --storage postgres',
    ])
    expect(
      problems({}, { FLOE_REQUEST_TIMEOUT_MS: '5000', FLOE_HEADERS_TIMEOUT_MS: '6000' }),
    ).toEqual([
      'FLOE_HEADERS_TIMEOUT_MS (6000) must not be longer than FLOE_REQUEST_TIMEOUT_MS (5000)',
    ])
    expect(problems({}, { FLOE_MAX_CONNECTIONS_PER_ADDRESS: '0' })).toEqual([
      'FLOE_MAX_CONNECTIONS_PER_ADDRESS must be an integer between 1 and 1000000 (got "0")',
    ])
    expect(
      loadConfig({}, { FLOE_KEEP_ALIVE_TIMEOUT_MS: '2500', FLOE_MAX_CONNECTIONS_PER_ADDRESS: '10' })
        .http,
    ).toMatchObject({ keepAliveTimeoutMs: 2500, maxConnectionsPerAddress: 10 })
    // In memory, the size bound applies to the events' estimated size in the heap.
    expect(loadConfig({ eventsMaxBytes: '64MiB' }, {}).inspection.memoryBytes).toEqual({
      good: 64 * 2 ** 20,
      bad: 64 * 2 ** 20,
    })
    expect(problems({ eventsMaxBytes: 'lots' })).toEqual([
      expect.stringContaining(
        'events size bound (--events-max-bytes, FLOE_EVENTS_MAX_BYTES) must be between 1 MiB and 1 PiB',
      ),
    ])
    for (const size of ['1000', '2PiB', '3 GB', 'lots', '-5MiB', '1.5GiB']) {
      expect(problems({ storage: 'postgres', eventsMaxBytes: size })).toEqual([
        `events size bound (--events-max-bytes, FLOE_EVENTS_MAX_BYTES) must be between 1 MiB and 1 PiB: bytes, or a number with KiB, MiB, GiB or TiB (got "${size}")`,
      ])
    }
    expect(problems({ storage: 'postgres', maxEvents: '0' })).toEqual([
      expect.stringContaining('--max-events 0'),
    ])
    // A second listener over HTTPS: PEM files, or a PKCS#12 file with Micro's password variable.
    expect(loadConfig({ tlsCert: 'c.pem', tlsKey: 'k.pem' }, {}).http.tls).toEqual({
      port: 9543,
      files: { kind: 'pem', certFile: path.resolve('c.pem'), keyFile: path.resolve('k.pem') },
    })
    expect(
      loadConfig({ tlsPfx: 'a.p12', tlsPort: '8443' }, { MICRO_SSL_CERT_PASSWORD: 'pw' }).http.tls,
    ).toEqual({
      port: 8443,
      files: { kind: 'pkcs12', file: path.resolve('a.p12'), passphrase: 'pw' },
    })
    expect(loadConfig({}, {}).http.tls).toBeNull()
    expect(problems({ tlsCert: 'c.pem' })).toEqual([
      '--tls-cert (FLOE_TLS_CERT) and --tls-key (FLOE_TLS_KEY) go together',
    ])
    expect(problems({ tlsPfx: 'a.p12', tlsKey: 'k.pem' })).toEqual([
      'give the HTTPS certificate either as --tls-pfx or as --tls-cert with --tls-key, not both',
    ])
    expect(problems({ tlsPort: '8443' })).toEqual([expect.stringContaining('needs a certificate')])
    expect(problems({}, { FLOE_TLS_PFX: 'a.p12', FLOE_TLS_PORT: 'https' })).toEqual([
      'the HTTPS port (--tls-port, FLOE_TLS_PORT) must be an integer between 0 and 65535 (got "https")',
    ])
    // Click-tracking redirects: off by default; hosts only with them.
    expect(loadConfig({}, {}).inspection.redirects).toEqual({ enabled: false, domains: [] })
    expect(
      loadConfig({ redirects: true, redirectDomain: ['Shop.test', 'shop.test'] }, {}).inspection
        .redirects,
    ).toEqual({ enabled: true, domains: ['shop.test'] })
    expect(
      loadConfig({}, { FLOE_REDIRECTS: 'on', FLOE_REDIRECT_DOMAINS: 'a.test, b.test' }).inspection
        .redirects,
    ).toEqual({ enabled: true, domains: ['a.test', 'b.test'] })
    expect(problems({ redirectDomain: ['a.test'] })).toEqual([
      'redirect domains (--redirect-domain, FLOE_REDIRECT_DOMAINS) apply only with --redirects',
    ])
    expect(problems({}, { FLOE_REDIRECTS: 'yes' })).toEqual([
      'FLOE_REDIRECTS must be on or off (got "yes")',
    ])
    // Custom collector paths, as the collector's paths setting.
    expect(
      loadConfig(
        { collectorPath: ['/com.acme/track = /com.snowplowanalytics.snowplow/tp2'] },
        { FLOE_COLLECTOR_PATHS: '/x/y=/r/tp2' },
      ).inspection.collectorPaths,
    ).toEqual([{ from: '/com.acme/track', to: '/com.snowplowanalytics.snowplow/tp2' }])
    expect(
      loadConfig({}, { FLOE_COLLECTOR_PATHS: '/x/y=/r/tp2,/a/b=/com.snowplowanalytics.iglu/v1' })
        .inspection.collectorPaths,
    ).toHaveLength(2)
    for (const entry of [
      '/com.acme=/r/tp2',
      '/a/b=/c/d',
      '/r/x=/r/tp2',
      'a/b=/r/tp2',
      '/a/b=/r/tp2=/r/tp2',
    ])
      expect(problems({ collectorPath: [entry] })).toEqual([
        expect.stringContaining(`collector path "${entry}" must be /vendor/version=`),
      ])
    expect(
      problems({ collectorPath: ['/a/b=/r/tp2', '/a/b=/com.snowplowanalytics.snowplow/tp2'] }),
    ).toEqual(['collector path /a/b is given twice'])
    // The network user id cookie.
    expect(loadConfig({}, {}).inspection.cookie).toEqual({
      enabled: true,
      name: 'sp',
      domain: null,
      domains: [],
      fallbackDomain: null,
      secure: true,
      httpOnly: true,
      sameSite: 'None',
    })
    expect(
      loadConfig({ cookieName: 'micro', cookieDomain: '.shop.test' }, { FLOE_COOKIE: 'off' })
        .inspection.cookie,
    ).toMatchObject({ enabled: false, name: 'micro', domain: '.shop.test' })
    expect(
      loadConfig(
        { cookieSecure: 'off', cookieSameSite: 'strict' },
        { FLOE_COOKIE_HTTP_ONLY: 'off', FLOE_COOKIE_SAME_SITE: 'lax' },
      ).inspection.cookie,
    ).toMatchObject({ secure: false, httpOnly: false, sameSite: 'Strict' })
    expect(loadConfig({ cookieSameSite: 'unset' }, {}).inspection.cookie.sameSite).toBeNull()
    expect(problems({ cookieSecure: 'maybe', cookieSameSite: 'sometimes' })).toEqual([
      expect.stringContaining(
        'SameSite (--cookie-same-site, FLOE_COOKIE_SAME_SITE) must be None, Lax, Strict or unset',
      ),
      '--cookie-secure must be on or off (got "maybe")',
    ])
    expect(loadConfig({ cookie: false }, {}).inspection.cookie.enabled).toBe(false)
    expect(problems({ cookieName: 'a b', cookieDomain: 'shop.test; Secure' })).toEqual([
      'the cookie name (--cookie-name, FLOE_COOKIE_NAME) must be a token of at most 64 characters, no spaces, separators or "=" (got "a b")',
      'the cookie domain (--cookie-domain, FLOE_COOKIE_DOMAIN) must be a host name such as shop.test (got "shop.test; Secure")',
    ])
    // --no-storage (Micro 4.x): no events kept, whatever the environment asks for.
    expect(
      loadConfig({ storage: false }, { FLOE_MAX_EVENTS: '50', FLOE_EVENT_STORAGE: 'postgres' })
        .inspection,
    ).toMatchObject({ maxEvents: 0, storage: { kind: 'memory' } })
    expect(problems({ storage: false, maxEvents: '0' })).toEqual([])
    expect(problems({ storage: false, maxEvents: '5' })).toEqual([
      '--no-storage keeps no events; it cannot be combined with --max-events 5',
    ])
    expect(problems({ enrich: ['anon_ip', 'yauaa'] })).toEqual([
      expect.stringMatching(
        /^--enrich yauaa: not an enrichment Floe can enable with defaults \(one of campaign_attribution, /,
      ),
    ])
    expect(problems({}, { FLOE_ENRICH: ' anon_ip, ,ua_parser_config ' })).toEqual([])
    expect(
      loadConfig({}, { FLOE_ENRICH: ' anon_ip, ,ua_parser_config,anon_ip' }).inspection.enrich,
    ).toEqual(['anon_ip', 'ua_parser_config'])
  })
})
