import { isbot } from 'isbot'
import { LRUCache } from 'lru-cache'
import { UAParser } from 'ua-parser-js'
import type { EnrichedEvent } from '../canonical-event.js'

/**
 * The YAUAA enrichment (`yauaa_enrichment_config`, or `--yauaa`): a `nl.basjes/yauaa_context`
 * entity for every event, from its `useragent`, with YAUAA's field names and value forms. Floe
 * does not run YAUAA (a Java library): the fields come from ua-parser-js 1.x (MIT) and isbot, and
 * only the fields those can honestly derive are filled; the rest are left out (the schema
 * requires `deviceClass` alone). docs/inspection.md lists where the values differ from YAUAA's.
 */

export const YAUAA_CONTEXT = 'iglu:nl.basjes/yauaa_context/jsonschema/1-0-5'
/** YAUAA's own default cache size. */
export const DEFAULT_YAUAA_CACHE_SIZE = 10_000

export type YauaaFields = Readonly<Record<string, string>>

const DEVICE_CLASSES: Readonly<Record<string, string>> = {
  mobile: 'Phone',
  tablet: 'Tablet',
  smarttv: 'TV',
  console: 'Game Console',
  wearable: 'Watch',
  xr: 'Virtual Reality',
}
const DESKTOP_SYSTEMS = new Set([
  'Windows NT',
  'Mac OS',
  'Linux',
  'Ubuntu',
  'Debian',
  'Fedora',
  'Mint',
  'Arch',
  'CentOS',
  'Gentoo',
  'Kubuntu',
  'Mandriva',
  'SUSE',
  'Red Hat',
  'Slackware',
  'Chrome OS',
  'FreeBSD',
  'OpenBSD',
  'NetBSD',
  'Solaris',
])
const MOBILE_SYSTEMS = new Set([
  'iOS',
  'Android',
  'HarmonyOS',
  'BlackBerry',
  'Windows Phone',
  'Windows Mobile',
  'KaiOS',
  'Sailfish',
  'Symbian',
  'Firefox OS',
])
/** ua-parser-js's names where YAUAA's differ. */
const SYSTEM_NAMES: Readonly<Record<string, string>> = {
  Windows: 'Windows NT',
  'Chromium OS': 'Chrome OS',
  macOS: 'Mac OS',
}
const AGENT_NAMES: Readonly<Record<string, string>> = {
  'Mobile Safari': 'Safari',
  'Mobile Chrome': 'Chrome',
  'Mobile Firefox': 'Firefox',
  'Chrome WebView': 'Chrome Webview',
  IE: 'Internet Explorer',
}
const ENGINE_NAMES: Readonly<Record<string, string>> = { WebKit: 'AppleWebKit' }
const IN_APP_AGENTS = new Set(['Facebook', 'Instagram', 'Line', 'WeChat', 'TikTok', 'Snapchat'])
const CPUS: Readonly<Record<string, readonly [string, string]>> = {
  amd64: ['Intel x86_64', '64'],
  ia32: ['Intel x86', '32'],
  arm64: ['ARM', '64'],
}

const major = (version: string) => version.split('.')[0] ?? version
/** A reduced Chromium version (`131.0.0.0`) says the major version only, as YAUAA reads it. */
const unreduced = (version: string) => version.replace(/^(\d+)\.0\.0\.0$/, '$1')

/** Name, version and their majors, as YAUAA spells each group. */
function named(
  fields: Record<string, string>,
  prefix: string,
  name: string,
  version: string | null,
): void {
  const shown = version ?? '??'
  fields[`${prefix}Name`] = name
  fields[`${prefix}Version`] = shown
  fields[`${prefix}VersionMajor`] = version === null ? '??' : major(version)
  fields[`${prefix}NameVersion`] = `${name} ${shown}`
  fields[`${prefix}NameVersionMajor`] = `${name} ${version === null ? '??' : major(version)}`
}

/** A robot: the agent its user agent names (`Googlebot/2.1`, `curl/8.5.0`) and the URL it gives. */
function robotFields(useragent: string): Record<string, string> {
  const mobile = /\bMobile\b/.test(useragent)
  const fields: Record<string, string> = {
    deviceClass: mobile ? 'Robot Mobile' : 'Robot',
    operatingSystemClass: 'Cloud',
    layoutEngineClass: 'Robot',
    agentClass: mobile ? 'Robot Mobile' : 'Robot',
  }
  const agent =
    /\b([A-Za-z][\w.-]{0,60}?(?:bot|spider|crawler|fetcher)[\w.-]{0,60}?)\/(\d[\w.]{0,40})/i.exec(
      useragent,
    ) ?? /^([A-Za-z][\w.-]{0,60}?)\/(\d[\w.]{0,40})/.exec(useragent)
  if (agent !== null && agent[1] !== 'Mozilla') named(fields, 'agent', agent[1]!, agent[2]!)
  const url = /\+?(https?:\/\/[^\s;)]{1,200})/.exec(useragent)
  if (url !== null) fields.agentInformationUrl = url[1]!
  return fields
}

/**
 * How much of a user agent is read: the `useragent` field's own limit (a longer one makes the event
 * a bad row anyway). It bounds the patterns' work: one crafted 100 kB agent cost the robot pattern
 * 125 ms; 1 000 characters cost it about 1 ms.
 */
const READ_CHARS = 1000

/** The yauaa_context fields of one user agent. */
export function yauaaFields(whole: string | null): YauaaFields {
  if (whole === null || whole === '') return { deviceClass: 'Unknown' }
  const useragent = whole.length > READ_CHARS ? whole.slice(0, READ_CHARS) : whole
  if (isbot(useragent)) return robotFields(useragent)
  const { browser, engine, os, device, cpu } = new UAParser(useragent).getResult()
  const fields: Record<string, string> = {}
  const system = os.name === undefined ? null : (SYSTEM_NAMES[os.name] ?? os.name)
  const type = device.type === undefined ? undefined : DEVICE_CLASSES[device.type]
  fields.deviceClass =
    type ?? (system !== null && DESKTOP_SYSTEMS.has(system) ? 'Desktop' : 'Unknown')
  if (device.vendor !== undefined) {
    fields.deviceBrand = device.vendor
    fields.deviceName =
      device.model === undefined ? device.vendor : `${device.vendor} ${device.model}`
  } else if (fields.deviceClass === 'Desktop') fields.deviceName = 'Desktop'
  const architecture = cpu.architecture === undefined ? undefined : CPUS[cpu.architecture]
  if (architecture !== undefined) [fields.deviceCpu, fields.deviceCpuBits] = architecture
  if (system !== null) {
    fields.operatingSystemClass =
      device.type === 'smarttv'
        ? 'Embedded'
        : device.type === 'console'
          ? 'Game Console'
          : DESKTOP_SYSTEMS.has(system)
            ? 'Desktop'
            : MOBILE_SYSTEMS.has(system)
              ? 'Mobile'
              : 'Unknown'
    // Windows NT 10.0 is Windows 10 or 11: the user agent cannot tell, nor does YAUAA say.
    const version =
      system === 'Windows NT' && /Windows NT 10\.0/.test(useragent) ? null : os.version
    named(fields, 'operatingSystem', system, version ?? null)
    const build = /\bBuild\/([^;)\s]+)/.exec(useragent)
    if (system === 'Android' && build !== null) fields.operatingSystemVersionBuild = build[1]!
  }
  if (engine.name !== undefined) {
    const version =
      engine.version === undefined
        ? null
        : engine.name === 'Blink'
          ? unreduced(engine.version).split('.').slice(0, 2).join('.')
          : engine.version
    fields.layoutEngineClass = 'Browser'
    named(fields, 'layoutEngine', ENGINE_NAMES[engine.name] ?? engine.name, version)
    const build = /\bGecko\/(\d{8})\b/.exec(useragent)
    if (engine.name === 'Gecko' && build !== null) fields.layoutEngineBuild = build[1]!
  }
  if (browser.name !== undefined) {
    const name = AGENT_NAMES[browser.name] ?? browser.name
    fields.agentClass = /WebView/i.test(browser.name)
      ? 'Browser Webview'
      : IN_APP_AGENTS.has(name)
        ? 'Mobile App'
        : 'Browser'
    named(fields, 'agent', name, browser.version === undefined ? null : unreduced(browser.version))
  }
  return fields
}

/** yauaa_enrichment_config: the entity goes first in derived_contexts; answers are kept per user agent (cacheSize). */
export function createYauaaStep(config: { readonly cacheSize: number }) {
  const cache =
    config.cacheSize > 0 ? new LRUCache<string, YauaaFields>({ max: config.cacheSize }) : null
  return function yauaaStep(event: EnrichedEvent): void {
    const useragent = typeof event.fields.useragent === 'string' ? event.fields.useragent : null
    let fields = useragent === null ? undefined : cache?.get(useragent)
    if (fields === undefined) {
      fields = yauaaFields(useragent)
      if (useragent !== null) cache?.set(useragent, fields)
    }
    event.derivedContexts.unshift({ schema: YAUAA_CONTEXT, data: { ...fields } })
  }
}
