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
    stack.push(...Object.values(node))
  }
  return null
}
