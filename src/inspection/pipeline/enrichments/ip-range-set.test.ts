import fc from 'fast-check'
import ipaddr from 'ipaddr.js'
import { describe, expect, it } from 'vitest'
import { FUZZ_SEED } from '../../../../test/support/fuzz-seed.js'
import { ipRangeSet } from './ip-range-set.js'

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number]

/** ipaddr.js's own answer: the walk of the list that the set replaces. */
const walked = (ranges: readonly Range[], address: ipaddr.IPv4 | ipaddr.IPv6) =>
  ranges.some(([range, bits]) =>
    range.kind() === 'ipv4'
      ? address.kind() === 'ipv4' && (address as ipaddr.IPv4).match(range as ipaddr.IPv4, bits)
      : address.kind() === 'ipv6' && (address as ipaddr.IPv6).match(range as ipaddr.IPv6, bits),
  )

// Few distinct values per byte, so that ranges overlap, nest and hold the addresses drawn.
const octet = fc.constantFrom(0, 1, 2, 127, 128, 254, 255)
const part = fc.constantFrom(0, 1, 0x20, 0x8000, 0xfffe, 0xffff)
const v4 = fc.tuple(octet, octet, octet, octet).map((o) => new ipaddr.IPv4(o))
const v6 = fc.array(part, { minLength: 8, maxLength: 8 }).map((p) => new ipaddr.IPv6(p))
const address = fc.oneof(v4, v6)
const range: fc.Arbitrary<Range> = fc.oneof(
  fc.tuple(v4, fc.integer({ min: 0, max: 32 })),
  fc.tuple(v6, fc.integer({ min: 0, max: 128 })),
)

describe('a set of IP ranges', () => {
  it('holds a few ranges of both kinds', () => {
    const set = ipRangeSet(
      ['198.51.100.9/24', '10.0.0.0/8', '2001:db8:ff::/48'].map((r) => ipaddr.parseCIDR(r)),
    )
    const has = (text: string) => set.has(ipaddr.parse(text))
    expect(has('198.51.100.0')).toBe(true)
    expect(has('198.51.100.255')).toBe(true)
    expect(has('198.51.101.0')).toBe(false)
    expect(has('10.255.255.255')).toBe(true)
    expect(has('11.0.0.0')).toBe(false)
    expect(has('2001:db8:ff:ffff::1')).toBe(true)
    expect(has('2001:db8:100::')).toBe(false)
    // An IPv4 range holds no IPv6 address, even one that maps it.
    expect(has('::ffff:10.0.0.1')).toBe(false)
    expect(set.size).toBe(3)
  })

  it('holds everything with a /0 of its kind, and nothing when empty', () => {
    const all = ipRangeSet([ipaddr.parseCIDR('0.0.0.0/0'), ipaddr.parseCIDR('::/0')])
    expect(all.has(ipaddr.parse('255.255.255.255'))).toBe(true)
    expect(all.has(ipaddr.parse('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'))).toBe(true)
    expect(ipRangeSet([]).has(ipaddr.parse('1.2.3.4'))).toBe(false)
  })

  it(`answers as a walk of the list with ipaddr.js does (seed ${FUZZ_SEED})`, () => {
    fc.assert(
      fc.property(
        fc.array(range, { maxLength: 12 }),
        fc.array(address, { maxLength: 20 }),
        (ranges, addresses) => {
          const set = ipRangeSet(ranges)
          // The ranges' own bounds are the likeliest to be off by one.
          const probes = [...addresses, ...ranges.flatMap(([r, bits]) => bounds(r, bits))]
          for (const probe of probes) expect(set.has(probe)).toBe(walked(ranges, probe))
        },
      ),
      { seed: FUZZ_SEED, numRuns: 500 },
    )
  })
})

/** The first and last address of a range, and the ones just outside it. */
function bounds(range: ipaddr.IPv4 | ipaddr.IPv6, bits: number): (ipaddr.IPv4 | ipaddr.IPv6)[] {
  const cidr = `${range.toString()}/${bits}`
  const first =
    range.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(cidr)
      : ipaddr.IPv6.networkAddressFromCIDR(cidr)
  const last =
    range.kind() === 'ipv4'
      ? ipaddr.IPv4.broadcastAddressFromCIDR(cidr)
      : ipaddr.IPv6.broadcastAddressFromCIDR(cidr)
  return [first, last, step(first, -1), step(last, 1)].filter(
    (a): a is ipaddr.IPv4 | ipaddr.IPv6 => a !== null,
  )
}

/** The address one before or after, null past either end. */
function step(address: ipaddr.IPv4 | ipaddr.IPv6, by: 1 | -1): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bytes = address.toByteArray()
  for (let at = bytes.length - 1; at >= 0; at--) {
    const next = bytes[at]! + by
    if (next >= 0 && next <= 255) {
      bytes[at] = next
      return ipaddr.fromByteArray(bytes)
    }
    bytes[at] = by === 1 ? 0 : 255
  }
  return null
}
