import ipaddr from 'ipaddr.js'
import type { EnrichedEvent } from '../canonical-event.js'

/** `anon_ip` parameters: how many trailing IPv4 octets and IPv6 segments become `x`. */
export interface AnonymizeIpConfig {
  readonly anonOctets: 1 | 2 | 3 | 4
  readonly anonSegments?: number
}

function anonymizeV4(ip: string, octets: number): string {
  const parts = ip.split('.')
  return [
    ...parts.slice(0, Math.max(0, 4 - octets)),
    ...Array<string>(Math.min(4, octets)).fill('x'),
  ].join('.')
}

/** The reference rule, with the literal `x`: `1.2.3.4` with 1 octet → `1.2.3.x`; IPv6 on the expanded form. */
export function anonymizeIp(ip: string, config: AnonymizeIpConfig): string {
  const segments = config.anonSegments ?? config.anonOctets
  const mapped = /^::ffff:(.+)$/i.exec(ip)
  if (mapped?.[1] !== undefined && ipaddr.IPv4.isValid(mapped[1]))
    return `${ip.slice(0, ip.length - mapped[1].length)}${anonymizeV4(mapped[1], config.anonOctets)}`
  if (ipaddr.IPv4.isValidFourPartDecimal(ip)) return anonymizeV4(ip, config.anonOctets)
  if (ipaddr.IPv6.isValid(ip)) {
    const groups = ipaddr.IPv6.parse(ip).toNormalizedString().split(':')
    return [
      ...groups.slice(0, Math.max(0, 8 - segments)),
      ...Array<string>(Math.min(8, segments)).fill('x'),
    ].join(':')
  }
  if (ip === '' || ip.includes('.')) return anonymizeV4(ip, config.anonOctets)
  if (ip.includes(':'))
    return [
      ...ip.split(':').slice(0, Math.max(0, 8 - segments)),
      ...Array<string>(Math.min(8, segments)).fill('x'),
    ].join(':')
  return ip
}

export function createAnonymizeIpStep(config: AnonymizeIpConfig) {
  return function anonymizeIpStep(event: EnrichedEvent): void {
    const ip = event.fields.user_ipaddress
    if (typeof ip === 'string') event.fields.user_ipaddress = anonymizeIp(ip, config)
  }
}
