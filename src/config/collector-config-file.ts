import { readFile, stat } from 'node:fs/promises'
import { isJsonObject } from '../shared/index.js'
import { ConfigError } from './config.js'
import { parseHoconText } from './hocon-text.js'

/** The collector options a Micro collector configuration file gives, as flags would give them. */
export interface CollectorFileSettings {
  readonly host?: string
  readonly port?: string
  readonly collectorPath?: readonly string[]
  readonly cookie?: boolean
  readonly cookieName?: string
  readonly cookieDomain?: string
  readonly cookieDomains?: readonly string[]
  readonly cookieFallbackDomain?: string
  readonly cookieSecure?: string
  readonly cookieHttpOnly?: string
  readonly cookieSameSite?: string
  readonly redirects?: boolean
  readonly redirectDomain?: readonly string[]
}

/** What reading the file found: the settings, and the keys it ignored (logged at start-up). */
export interface CollectorFile {
  readonly settings: CollectorFileSettings
  readonly ignored: readonly string[]
}

/** Larger files are not collector configurations. */
const MAX_FILE_BYTES = 1024 * 1024

/**
 * Sections Floe has no part for whose `enabled` may stay off: turned on, Floe would silently
 * behave otherwise, so the file is refused.
 */
const REFUSED_WHEN_ENABLED: Readonly<Record<string, string>> = {
  cookieBounce: 'cookie bounce',
  doNotTrackCookie: 'the do-not-track cookie',
  redirectMacro: 'the redirect macro',
  rootResponse: 'a custom root response',
  crossDomain: 'the cross-domain policy',
  prometheusMetrics: 'Prometheus metrics',
  hsts: 'HSTS',
}

/** The key that turns a section on (`enabled`, or `enable` as the collector spells it for HSTS), when true. */
const switchedOn = (section: Record<string, unknown>): 'enabled' | 'enable' | null =>
  bool(section.enabled) === true ? 'enabled' : bool(section.enable) === true ? 'enable' : null

const text = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined
const bool = (value: unknown): boolean | undefined =>
  typeof value === 'boolean'
    ? value
    : value === 'true' || value === 'on' || value === 'yes'
      ? true
      : value === 'false' || value === 'off' || value === 'no'
        ? false
        : undefined
const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value)
    ? value.filter((item): item is string => typeof item === 'string')
    : undefined

/** The `collector { … }` section, or the top level when the file has none (Micro takes both). */
function collectorSection(document: Record<string, unknown>): {
  section: Record<string, unknown>
  prefix: string
  others: string[]
} {
  if (isJsonObject(document.collector)) {
    return {
      section: document.collector,
      prefix: 'collector.',
      others: Object.keys(document).filter((key) => key !== 'collector'),
    }
  }
  return { section: document, prefix: '', others: [] }
}

/** Reads a Micro (Scala Stream Collector) configuration in HOCON: see docs/configuration.md. */
export async function readCollectorConfigFile(file: string): Promise<CollectorFile> {
  const refuse = (problem: string): never => {
    throw new ConfigError([`--collector-config ${file}: ${problem}`])
  }
  let hocon: string
  try {
    const found = await stat(file)
    if (!found.isFile()) return refuse('is not a file')
    if (found.size > MAX_FILE_BYTES) return refuse(`is over ${MAX_FILE_BYTES} bytes`)
    hocon = await readFile(file, 'utf8')
  } catch (error) {
    if (error instanceof ConfigError) throw error
    return refuse(
      `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    )
  }
  let document: unknown
  try {
    document = await parseHoconText(hocon)
  } catch (error) {
    return refuse((error as Error).message)
  }
  if (!isJsonObject(document)) return refuse('must hold an object of settings')
  const { section, prefix, others } = collectorSection(document)
  const ignored = new Set(others)
  const settings: Record<string, unknown> = {}
  const problems: string[] = []
  const take = (key: string, value: unknown, wanted: string): unknown => {
    if (value === undefined) return undefined
    if (value === null) return undefined
    problems.push(`${prefix}${key} must be ${wanted}`)
    return undefined
  }
  for (const [key, value] of Object.entries(section)) {
    switch (key) {
      case 'interface':
        settings.host = text(value) ?? take(key, value, 'a string')
        break
      case 'port':
        settings.port = text(value) ?? take(key, value, 'a port number')
        break
      case 'paths':
        if (!isJsonObject(value)) {
          take(key, value, 'an object of custom path = standard path')
          break
        }
        settings.collectorPath = Object.entries(value).map(
          ([from, to]) => `${from}=${typeof to === 'string' ? to : ''}`,
        )
        break
      case 'enableDefaultRedirect':
        settings.redirects = bool(value) ?? take(key, value, 'true or false')
        break
      case 'redirectDomains':
        settings.redirectDomain = strings(value) ?? take(key, value, 'a list of host names')
        break
      case 'cookie':
        readCookie(value, `${prefix}cookie`, settings, problems, ignored)
        break
      default:
        if (key in REFUSED_WHEN_ENABLED && isJsonObject(value) && switchedOn(value) !== null)
          problems.push(
            `${prefix}${key}.${switchedOn(value)} is true, but Floe has no ${REFUSED_WHEN_ENABLED[key]}: turn it off or remove it`,
          )
        else if (key === 'ssl' && isJsonObject(value) && bool(value.enable) === true)
          problems.push(
            `${prefix}ssl.enable is true: give Floe a certificate with --tls-cert and --tls-key (or --tls-pfx) instead`,
          )
        else ignored.add(`${prefix}${key}`)
    }
  }
  // Redirect domains matter only with redirects on: Micro takes a list it will not use.
  if (settings.redirects !== true) delete settings.redirectDomain
  if (problems.length > 0) throw new ConfigError(problems.map((p) => `--collector-config: ${p}`))
  return { settings: settings as CollectorFileSettings, ignored: [...ignored].sort() }
}

function readCookie(
  value: unknown,
  at: string,
  settings: Record<string, unknown>,
  problems: string[],
  ignored: Set<string>,
): void {
  if (!isJsonObject(value)) {
    problems.push(`${at} must be an object`)
    return
  }
  const flag = (raw: unknown, key: string): string | undefined => {
    const parsed = bool(raw)
    if (parsed === undefined && raw !== undefined)
      problems.push(`${at}.${key} must be true or false`)
    return parsed === undefined ? undefined : parsed ? 'on' : 'off'
  }
  for (const [key, raw] of Object.entries(value)) {
    switch (key) {
      case 'enabled':
        settings.cookie = bool(raw)
        if (settings.cookie === undefined) problems.push(`${at}.enabled must be true or false`)
        break
      case 'name':
        settings.cookieName = text(raw)
        break
      case 'domain':
        // The older single-domain form; "" means none.
        if (text(raw) !== '' && text(raw) !== undefined) settings.cookieDomain = text(raw)
        break
      case 'domains':
        settings.cookieDomains = strings(raw)
        if (settings.cookieDomains === undefined) problems.push(`${at}.domains must be a list`)
        break
      case 'fallbackDomain':
        if (text(raw) !== '' && text(raw) !== undefined) settings.cookieFallbackDomain = text(raw)
        break
      case 'secure':
        settings.cookieSecure = flag(raw, key)
        break
      case 'httpOnly':
        settings.cookieHttpOnly = flag(raw, key)
        break
      case 'sameSite':
        settings.cookieSameSite = text(raw)
        break
      default:
        ignored.add(`${at}.${key}`)
    }
  }
}

/**
 * The flags with the file's settings under them: a flag given on the command line wins (for the
 * cookie, only `--no-cookie`: commander sets `cookie` to true when it is not given).
 */
export function withCollectorFile<F extends CollectorFlagsOfFile>(
  flags: F,
  settings: CollectorFileSettings,
): F {
  const given = Object.fromEntries(
    Object.entries(flags).filter(([key, value]) => value !== undefined && key !== 'cookie'),
  )
  const lists = ['collectorPath', 'redirectDomain'] as const
  for (const list of lists) {
    const value = given[list]
    if (Array.isArray(value) && value.length === 0) delete given[list]
  }
  return {
    ...flags,
    ...settings,
    ...given,
    cookie: flags.cookie === false ? false : (settings.cookie ?? flags.cookie),
  }
}

/** The flags a collector configuration file may set. */
type CollectorFlagsOfFile = { readonly [K in keyof CollectorFileSettings]?: unknown }
