import { isJsonObject } from '../shared/index.js'
/**
 * `$ref` chains that lead only to each other (`a → b → a`, or `{"$ref": "#"}` at the root) describe
 * no schema at all, and make a validator compiler recurse for ever. Recursion through a real
 * subschema (a tree node whose `next` property refers back to the node) is fine and not reported.
 */

function decodeToken(token: string): string {
  let decoded = token
  try {
    decoded = decodeURIComponent(token)
  } catch {
    // A malformed escape is kept as written; it simply resolves to nothing.
  }
  return decoded.replace(/~1/g, '/').replace(/~0/g, '~')
}

/** The node a local `$ref` ("#", "#/definitions/a") points at, or undefined. */
function resolveLocal(root: unknown, ref: string): unknown {
  if (ref === '#' || ref === '#/') return root
  if (!ref.startsWith('#/')) return undefined
  let node: unknown = root
  for (const token of ref.slice(2).split('/').map(decodeToken)) {
    if (Array.isArray(node) && /^\d+$/.test(token)) node = node[Number(token)]
    else if (isJsonObject(node) && Object.hasOwn(node, token)) node = node[token]
    else return undefined
  }
  return node
}

/** The refs followed into the first pure `$ref` cycle (the last one closes the loop), or null. */
export function findRefCycle(schema: unknown): string[] | null {
  const stack: unknown[] = [schema]
  const seen = new Set<unknown>()
  while (stack.length > 0) {
    const node = stack.pop()
    if (node === null || typeof node !== 'object' || seen.has(node)) continue
    seen.add(node)
    if (isJsonObject(node) && typeof node.$ref === 'string') {
      const chain: string[] = []
      const visited = new Set<unknown>([node])
      let current: unknown = node
      while (
        isJsonObject(current) &&
        typeof current.$ref === 'string' &&
        current.$ref.startsWith('#')
      ) {
        chain.push(current.$ref)
        current = resolveLocal(schema, current.$ref)
        if (visited.has(current)) return chain
        visited.add(current)
      }
    }
    for (const inner of Object.values(node)) stack.push(inner)
  }
  return null
}

/**
 * The most subschemas one value may meet at one place in the data: one `$ref` reaches its target
 * there, and `allOf`, `anyOf`, `oneOf`, `not` and schema `dependencies` apply theirs there too.
 * Refs that double at each level (`d1 = {allOf: [{$ref: d0}, {$ref: d0}]}`, `d2` of two `d1`s…)
 * make a few kilobytes of schema cost 2^26 checks per value; descending into the data
 * (`properties`, `items`) does not multiply, it moves to another place. Counted once per
 * subschema, so linear in the schema; answers `limit + 1` as soon as the count passes `limit`
 * (a same-place cycle, `{"allOf": [{"$ref": "#"}]}`, never ends: it passes any limit).
 */
export function samePlaceFanOut(schema: unknown, limit: number): number {
  const over = limit + 1
  const counted = new Map<object, number>()
  const counting = new Set<object>()
  const count = (node: unknown, depth: number): number => {
    if (!isJsonObject(node)) return 0
    const known = counted.get(node)
    if (known !== undefined) return known
    if (counting.has(node) || depth > 1000) return over
    counting.add(node)
    let total = 1
    const add = (child: unknown) => {
      if (total <= limit) total = Math.min(over, total + count(child, depth + 1))
    }
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#'))
      add(resolveLocal(schema, node.$ref))
    for (const keyword of ['allOf', 'anyOf', 'oneOf'])
      if (Array.isArray(node[keyword])) for (const child of node[keyword]) add(child)
    add(node.not)
    if (isJsonObject(node.dependencies))
      for (const dependency of Object.values(node.dependencies)) add(dependency)
    counting.delete(node)
    counted.set(node, total)
    return total
  }
  let most = 0
  const stack: unknown[] = [schema]
  while (stack.length > 0 && most <= limit) {
    const node = stack.pop()
    if (node === null || typeof node !== 'object') continue
    if (isJsonObject(node)) most = Math.max(most, count(node, 0))
    for (const inner of Object.values(node)) stack.push(inner)
  }
  return most
}
