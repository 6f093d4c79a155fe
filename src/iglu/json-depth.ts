/**
 * Depth of nested arrays and objects (a scalar is 0), without recursion, stopping as soon as
 * `limit` is passed, so hostile documents cost little.
 */
export function jsonDepthExceeds(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!
    if (current === null || typeof current !== 'object') continue
    if (depth + 1 > limit) return true
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child, depth + 1])
  }
  return false
}
