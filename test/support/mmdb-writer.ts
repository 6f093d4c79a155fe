import ipaddr from 'ipaddr.js'

/**
 * A small MaxMind DB (`.mmdb`) writer for tests, following the MaxMind DB file format spec 2.0:
 * a binary search tree of 24-bit records, a 16-byte separator, the data section, then the metadata
 * map after the `\xAB\xCD\xEFMaxMind.com` marker. Enough for a few disjoint networks; no pointers
 * or deduplication in the data section.
 */

/** A value the data section can hold: strings, unsigned integers (uint32, or uint64 as a bigint), doubles, booleans, arrays and maps. */
export type MmdbValue =
  string | number | bigint | boolean | readonly MmdbValue[] | { readonly [key: string]: MmdbValue }

export interface MmdbNetwork {
  /** CIDR, e.g. `203.0.113.0/24` or `2001:db8::/32` (IPv6 only in an ipVersion 6 database). */
  readonly network: string
  readonly data: MmdbValue
}

export interface MmdbOptions {
  readonly databaseType: string
  readonly ipVersion?: 4 | 6
  readonly networks: readonly MmdbNetwork[]
}

const METADATA_MARKER = Buffer.from('abcdef4d61784d696e642e636f6d', 'hex')
const TYPES = {
  string: 2,
  double: 3,
  uint16: 5,
  uint32: 6,
  map: 7,
  uint64: 9,
  array: 11,
  boolean: 14,
} as const

/** A control byte (plus extended type and size bytes) for a field of the given type and size. */
function control(type: number, size: number): Buffer {
  const extended = type > 7
  const bytes: number[] = []
  let sizeBits: number
  const sizeBytes: number[] = []
  if (size < 29) sizeBits = size
  else if (size < 285) [sizeBits, sizeBytes[0]] = [29, size - 29]
  else if (size < 65_821)
    [sizeBits, sizeBytes[0], sizeBytes[1]] = [30, (size - 285) >> 8, (size - 285) & 0xff]
  else throw new Error('value too large for this test writer')
  bytes.push(((extended ? 0 : type) << 5) | sizeBits)
  if (extended) bytes.push(type - 7)
  return Buffer.from([...bytes, ...sizeBytes])
}

function unsigned(type: number, value: number | bigint): Buffer {
  let hex = value.toString(16)
  if (hex === '0') hex = ''
  if (hex.length % 2 === 1) hex = `0${hex}`
  const payload = Buffer.from(hex, 'hex')
  return Buffer.concat([control(type, payload.length), payload])
}

/** One value in the data section's encoding. */
export function encodeValue(value: MmdbValue): Buffer {
  if (typeof value === 'bigint') return unsigned(TYPES.uint64, value)
  if (typeof value === 'string') {
    const payload = Buffer.from(value, 'utf8')
    return Buffer.concat([control(TYPES.string, payload.length), payload])
  }
  if (typeof value === 'boolean') return control(TYPES.boolean, value ? 1 : 0)
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0 && value < 2 ** 32)
      return unsigned(TYPES.uint32, value)
    const payload = Buffer.alloc(8)
    payload.writeDoubleBE(value)
    return Buffer.concat([control(TYPES.double, 8), payload])
  }
  if (Array.isArray(value))
    return Buffer.concat([
      control(TYPES.array, value.length),
      ...value.map((item: MmdbValue) => encodeValue(item)),
    ])
  const entries = Object.entries(value as Record<string, MmdbValue>)
  return Buffer.concat([
    control(TYPES.map, entries.length),
    ...entries.flatMap(([key, item]) => [encodeValue(key), encodeValue(item)]),
  ])
}

interface TreeNode {
  readonly children: [TreeNode | number | null, TreeNode | number | null]
}

/** The network's address bits, as the tree walks them (IPv4 inside IPv6 at ::a.b.c.d). */
function networkBits(cidr: string, ipVersion: 4 | 6): number[] {
  const [address, prefix] = ipaddr.parseCIDR(cidr)
  if (address.kind() === 'ipv6' && ipVersion === 4)
    throw new Error(`${cidr}: IPv6 network in an IPv4 database`)
  const bytes = address.toByteArray()
  const bits = bytes.flatMap((byte) => Array.from({ length: 8 }, (_, i) => (byte >> (7 - i)) & 1))
  const lead = address.kind() === 'ipv4' && ipVersion === 6 ? Array<number>(96).fill(0) : []
  return [...lead, ...bits].slice(0, lead.length + prefix)
}

/** The bytes of a `.mmdb` file holding the given networks. */
export function writeMmdb(options: MmdbOptions): Buffer {
  const ipVersion = options.ipVersion ?? 4
  const root: TreeNode = { children: [null, null] }
  const data: Buffer[] = []
  let dataSize = 0
  const offsets: number[] = []
  for (const [index, { network, data: value }] of options.networks.entries()) {
    const encoded = encodeValue(value)
    offsets.push(dataSize)
    data.push(encoded)
    dataSize += encoded.length
    const bits = networkBits(network, ipVersion)
    let node = root
    for (const [depth, bit] of bits.entries()) {
      const child = node.children[bit as 0 | 1]
      if (depth === bits.length - 1) {
        if (child !== null) throw new Error(`${network} overlaps another network`)
        node.children[bit as 0 | 1] = index
      } else if (child === null) {
        const next: TreeNode = { children: [null, null] }
        node.children[bit as 0 | 1] = next
        node = next
      } else if (typeof child === 'number') throw new Error(`${network} overlaps another network`)
      else node = child
    }
  }
  // Number the nodes breadth-first (root is 0), then write each as two 24-bit records.
  const nodes: TreeNode[] = [root]
  for (let i = 0; i < nodes.length; i++)
    for (const child of nodes[i]!.children)
      if (child !== null && typeof child !== 'number') nodes.push(child)
  const numbers = new Map(nodes.map((node, i) => [node, i]))
  const nodeCount = nodes.length
  const tree = Buffer.alloc(nodeCount * 6)
  nodes.forEach((node, i) => {
    node.children.forEach((child, side) => {
      const record =
        child === null
          ? nodeCount
          : typeof child === 'number'
            ? nodeCount + 16 + offsets[child]!
            : numbers.get(child)!
      tree.writeUIntBE(record, i * 6 + side * 3, 3)
    })
  })
  const metadata = encodeValue({
    node_count: nodeCount,
    record_size: 24,
    ip_version: ipVersion,
    database_type: options.databaseType,
    languages: ['en'],
    binary_format_major_version: 2,
    binary_format_minor_version: 0,
    description: { en: `${options.databaseType} test database written by Floe's tests` },
    build_epoch: 1_700_000_000n,
  })
  return Buffer.concat([tree, Buffer.alloc(16), ...data, METADATA_MARKER, metadata])
}
