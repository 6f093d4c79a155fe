import ipaddr from 'ipaddr.js'
import type { EnrichedEvent } from '../canonical-event.js'
import type { EnrichmentFailure } from './enrichment-failure.js'
import { ipRangeSet, type IpRangeSet } from './ip-range-set.js'

/**
 * The IAB/ABC International Spiders and Bots List, as Enrich's IAB enrichment reads it (its Java
 * client's rules): an event's user agent and IP address are checked against the list's three
 * files (IP addresses and ranges to exclude, user-agent patterns a browser must match, patterns
 * of known robots), and the verdict is a `com.iab.snowplow/spiders_and_robots` entity. The files
 * are licensed from the IAB: Floe reads them from where the configuration says, as Enrich does.
 */

export const IAB_CONTEXT = 'iglu:com.iab.snowplow/spiders_and_robots/jsonschema/1-0-0'
export const IAB_IDENTIFIER = 'iab-spiders-and-robots'

/** One line of `include_current.txt`: a pattern, active, start-of-string, inactive date. */
export interface IncludeRecord {
  readonly pattern: string
  readonly active: boolean
  readonly startOfString: boolean
  readonly inactiveAt: number | null
}

/** One line of `exclude_current.txt`: a pattern, active, exceptions, -, impact flag, start-of-string, inactive date. */
export interface ExcludeRecord extends IncludeRecord {
  readonly exceptions: readonly string[]
  readonly impactFlag: string
}

export interface IabLists {
  /** Addresses as written (IPv4 dotted, IPv6 in full without compression), and CIDR ranges. */
  readonly addresses: ReadonlySet<string>
  readonly ranges: IpRangeSet
  readonly include: readonly IncludeRecord[]
  readonly exclude: readonly ExcludeRecord[]
  /** `includeUseragents` (1-0-1): patterns that make a browser whatever the lists say. */
  readonly customInclude: readonly string[]
  /** `excludeUseragents` (1-0-1): patterns that make a robot. */
  readonly customExclude: readonly string[]
}

/** Lowercase as the client lowercases (Locale.ENGLISH: no locale-specific mappings). */
const lower = (text: string) => text.toLowerCase()

/** `MM/dd/yyyy`, read as the start of that day in UTC; null when blank or not a date. */
export function iabDate(text: string | undefined): number | null {
  const match = /^(\d{1,2})\/(\d{1,2})\/(\d{1,4})$/.exec(text?.trim() ?? '')
  return match === null ? null : Date.UTC(Number(match[3]), Number(match[1]) - 1, Number(match[2]))
}

/** A flag column: 1 true, 0 false, anything else the default. */
const flag = (text: string | undefined, otherwise: boolean) =>
  text === '1' ? true : text === '0' ? false : otherwise

/**
 * The records of a pipe-delimited list: `#` starts a comment line, blank lines are skipped, a
 * field may be quoted with `"` (`""` for a quote inside), every field is trimmed. A quoted field
 * that runs over the end of its line is read up to that end.
 */
export function iabRecords(text: string): string[][] {
  const records: string[][] = []
  for (const line of text.split(/\r?\n|\r/)) {
    if (line.trim() === '' || line.startsWith('#')) continue
    const fields: string[] = []
    let field = ''
    let quoted = false
    for (let at = 0; at < line.length; at++) {
      const char = line[at]!
      if (quoted && char === '"' && line[at + 1] === '"') {
        field += '"'
        at++
      } else if (quoted && char === '"') quoted = false
      else if (quoted) field += char
      else if (char === '"' && field === '') quoted = true
      else if (char === '|') {
        fields.push(field.trim())
        field = ''
      } else field += char
    }
    fields.push(field.trim())
    records.push(fields)
  }
  return records
}

export function includeRecords(text: string): IncludeRecord[] {
  return iabRecords(text).map((f) => ({
    pattern: lower(f[0] ?? ''),
    active: flag(f[1], false),
    startOfString: flag(f[2], false),
    inactiveAt: iabDate(f[3]),
  }))
}

export function excludeRecords(text: string): ExcludeRecord[] {
  return iabRecords(text).map((f) => ({
    pattern: lower(f[0] ?? ''),
    active: flag(f[1], false),
    exceptions: lower(f[2] ?? '')
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== ''),
    impactFlag: f[4] ?? '',
    startOfString: flag(f[5], false),
    inactiveAt: iabDate(f[6]),
  }))
}

/** The IP file: one address or CIDR range a line. A range that does not parse stops start-up. */
export function ipList(text: string): Pick<IabLists, 'addresses' | 'ranges'> {
  const addresses = new Set<string>()
  const ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = []
  text.split(/\r?\n|\r/).forEach((raw, at) => {
    const line = raw.trim()
    if (line === '') return
    if (!line.includes('/')) return void addresses.add(line)
    try {
      ranges.push(ipaddr.parseCIDR(line))
    } catch {
      throw new Error(`line ${at + 1}: ${JSON.stringify(line)} is not an IP range (address/prefix)`)
    }
  })
  return { addresses, ranges: ipRangeSet(ranges) }
}

const matches = (ua: string, record: IncludeRecord) =>
  record.startOfString ? ua.startsWith(record.pattern) : ua.includes(record.pattern)

const IMPACTS: Readonly<Record<string, string>> = {
  '0': 'PAGE_IMPRESSIONS',
  '1': 'AD_IMPRESSIONS',
  '2': 'PAGE_AND_AD_IMPRESSIONS',
}

export interface IabVerdict {
  readonly spiderOrRobot: boolean
  readonly category: string
  readonly reason: string
  readonly primaryImpact: string
}

const BROWSER: IabVerdict = {
  spiderOrRobot: false,
  category: 'BROWSER',
  reason: 'PASSED_ALL',
  primaryImpact: 'NONE',
}
const robot = (reason: string, category = 'SPIDER_OR_ROBOT', primaryImpact = 'UNKNOWN') => ({
  spiderOrRobot: true,
  category,
  reason,
  primaryImpact,
})

/** Whether an address (already parsed) is on the IP list. */
function listed(lists: IabLists, address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  const written = address.kind() === 'ipv4' ? address.toString() : address.toNormalizedString()
  return lists.addresses.has(written) || lists.ranges.has(address)
}

/**
 * The client's check, in its order: the custom include and exclude patterns, the IP list, the
 * include list (a user agent no browser pattern matches is a robot), then the exclude list.
 * Throws for an exclude record whose impact flag is not 0, 1 or 2, as the client does.
 */
export function iabVerdict(
  lists: IabLists,
  userAgent: string | null,
  address: ipaddr.IPv4 | ipaddr.IPv6 | null,
  at: number,
): IabVerdict {
  const ua = userAgent === null ? null : lower(userAgent)
  if (ua !== null && lists.customInclude.some((p) => ua.includes(p))) return BROWSER
  if (ua !== null && lists.customExclude.some((p) => ua.includes(p)))
    return robot('FAILED_UA_EXCLUDE')
  if (address !== null && listed(lists, address)) return robot('FAILED_IP_EXCLUDE')
  if (ua === null) return BROWSER
  const included = lists.include.some(
    (r) => matches(ua, r) && (r.active || (r.inactiveAt !== null && at < r.inactiveAt)),
  )
  if (!included) return robot('FAILED_UA_INCLUDE')
  const excluded = lists.exclude.find(
    (r) =>
      (r.active || r.inactiveAt !== null) &&
      matches(ua, r) &&
      !r.exceptions.some((exception) => ua.includes(exception)),
  )
  if (excluded === undefined) return BROWSER
  const impact = IMPACTS[excluded.impactFlag]
  if (impact === undefined)
    throw new Error(`Invalid value of impression flag: '${excluded.impactFlag}'`)
  const active = excluded.inactiveAt === null || at < excluded.inactiveAt
  return robot(
    'FAILED_UA_EXCLUDE',
    active ? 'ACTIVE_SPIDER_OR_ROBOT' : 'INACTIVE_SPIDER_OR_ROBOT',
    impact,
  )
}

/** An address as Java's InetAddress reads one: IPv4-mapped IPv6 is IPv4; anything else none. */
function address(text: unknown): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (typeof text !== 'string' || !ipaddr.isValid(text)) return null
  try {
    return ipaddr.process(text)
  } catch {
    return null
  }
}

/**
 * The step: with a derived timestamp and a user agent or an address (before anonymisation), the
 * event gets the verdict as an entity; a bad impact flag in the lists is an enrichment failure.
 */
export function createIabStep(lists: IabLists, schemaKey: string) {
  const enrichment = { schemaKey, identifier: IAB_IDENTIFIER }
  return function iabStep(event: EnrichedEvent, failures: EnrichmentFailure[]): void {
    const at = event.fields.derived_tstamp
    if (typeof at !== 'number') return
    const ua = event.fields.useragent
    const userAgent = typeof ua === 'string' && ua.trim() !== '' ? ua : null
    const ip = address(event.fields.user_ipaddress)
    if (userAgent === null && ip === null) return
    try {
      const verdict = iabVerdict(lists, userAgent, ip, at)
      event.derivedContexts.unshift({ schema: IAB_CONTEXT, data: { ...verdict } })
    } catch (error) {
      failures.push({
        enrichment,
        message: { error: error instanceof Error ? error.message : String(error) },
      })
    }
  }
}
