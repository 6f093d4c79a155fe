import ipaddr from 'ipaddr.js'

/**
 * A set of CIDR ranges that answers "is this address in one of them?" by binary search: the
 * ranges become sorted, merged intervals of integers (IPv4 as numbers, IPv6 as bigints), so a
 * list of thousands of ranges costs a few comparisons per address instead of a walk of the list.
 * An IPv4 range holds IPv4 addresses only and an IPv6 range IPv6 ones, as ipaddr.js matches them.
 */
export interface IpRangeSet {
  readonly size: number
  has(address: ipaddr.IPv4 | ipaddr.IPv6): boolean
}

type Interval<N> = readonly [start: N, end: N]

/** The address's bytes as one unsigned integer. */
const v4Number = (address: ipaddr.IPv4) =>
  address.octets.reduce((sum, octet) => sum * 256 + octet, 0)
const v6Number = (address: ipaddr.IPv6) =>
  address.parts.reduce((sum, part) => (sum << 16n) | BigInt(part), 0n)

/** Sorted by start, overlapping intervals joined. */
function merged<N extends number | bigint>(intervals: Interval<N>[]): Interval<N>[] {
  intervals.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const out: [N, N][] = []
  for (const [start, end] of intervals) {
    const last = out[out.length - 1]
    if (last !== undefined && start <= last[1]) {
      if (end > last[1]) last[1] = end
    } else out.push([start, end])
  }
  return out
}

/** Whether a value is inside one of the sorted, disjoint intervals. */
function within<N extends number | bigint>(intervals: readonly Interval<N>[], value: N): boolean {
  let low = 0
  let high = intervals.length - 1
  while (low <= high) {
    const middle = (low + high) >>> 1
    const [start, end] = intervals[middle]!
    if (value < start) high = middle - 1
    else if (value > end) low = middle + 1
    else return true
  }
  return false
}

export function ipRangeSet(ranges: readonly [ipaddr.IPv4 | ipaddr.IPv6, number][]): IpRangeSet {
  const v4: Interval<number>[] = []
  const v6: Interval<bigint>[] = []
  for (const [range, bits] of ranges) {
    if (range.kind() === 'ipv4') {
      const size = 2 ** (32 - bits)
      const start = Math.floor(v4Number(range as ipaddr.IPv4) / size) * size
      v4.push([start, start + size - 1])
    } else {
      const hostBits = BigInt(128 - bits)
      const start = (v6Number(range as ipaddr.IPv6) >> hostBits) << hostBits
      v6.push([start, start + (1n << hostBits) - 1n])
    }
  }
  const v4Intervals = merged(v4)
  const v6Intervals = merged(v6)
  return {
    size: ranges.length,
    has: (address) =>
      address.kind() === 'ipv4'
        ? within(v4Intervals, v4Number(address as ipaddr.IPv4))
        : within(v6Intervals, v6Number(address as ipaddr.IPv6)),
  }
}
