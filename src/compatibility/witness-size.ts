/**
 * The most characters a witness may take as JSON. The smallest value that tells two schemas apart
 * can be huge (30 arrays of 30 strings of at least 100 000 characters: 90 MB), and a witness is
 * sent back, stored with the verdict and quoted in answers: a 200-byte request held the server's
 * event loop 2 s and took 520 MB. Room for one string of the longest the search writes (100 000
 * characters): a pair of Iglu Central's versions is told apart by a string over 64 KiB.
 */
export const MAX_WITNESS_CHARS = 128 * 1024

/**
 * The length of `value` as JSON, counted only up to `limit`: `limit + 1` once past it, so that a
 * huge value costs no more than the limit to measure. Strings count their characters (escapes
 * would only add), containers their brackets and separators.
 */
export function boundedJsonLength(value: unknown, limit = MAX_WITNESS_CHARS): number {
  let length = 0
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const node = stack.pop()
    if (typeof node === 'string') length += node.length + 2
    else if (node === null || typeof node !== 'object') length += String(node).length
    else if (Array.isArray(node)) {
      length += node.length + 1
      for (let i = node.length - 1; i >= 0 && length <= limit; i--) stack.push(node[i])
    } else {
      const keys = Object.keys(node)
      length += keys.length * 2 + 1
      for (const key of keys) {
        length += key.length + 2
        stack.push((node as Record<string, unknown>)[key])
        if (length > limit) break
      }
    }
    if (length > limit) return limit + 1
  }
  return length
}
