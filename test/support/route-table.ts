import type { FastifyInstance, HTTPMethods } from 'fastify'

/** One method on one registered path, as the router knows it (`/a/:id/b`). */
export interface RouteEntry {
  readonly method: HTTPMethods
  readonly url: string
}

// `│   ├── segment (GET, HEAD)`: four characters of tree drawing per level, then the segment and its methods.
const TREE_LINE = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+)(?: \(([A-Z, ]+)\))?$/

/**
 * Every route of the app, read from the router itself so that nothing registered can be missed.
 * Fastify prints its radix tree (`printRoutes`); a child's segment continues its parent's path.
 * Each rebuilt entry is checked with `hasRoute`, so a misread tree fails loudly instead of hiding routes;
 * wildcard routes are listed unchecked, as `hasRoute` does not find them by their pattern.
 */
export function routeTable(http: FastifyInstance): RouteEntry[] {
  const paths: string[] = []
  const routes: RouteEntry[] = []
  for (const line of http.printRoutes({ commonPrefix: false }).split('\n')) {
    if (line.trim() === '') continue
    const match = TREE_LINE.exec(line)
    if (match === null)
      throw new Error(`unexpected line in the route tree: ${JSON.stringify(line)}`)
    const depth = (match[1] ?? '').length / 4
    const url = (paths[depth - 1] ?? '') + (match[2] ?? '')
    paths.length = depth
    paths.push(url)
    for (const method of (match[3] ?? '').split(', ').filter((m) => m !== '')) {
      const route = { method: method as HTTPMethods, url }
      if (!url.includes('*') && !http.hasRoute(route))
        throw new Error(
          `rebuilt ${method} ${url} from the route tree, but the router does not know it`,
        )
      routes.push(route)
    }
  }
  return routes
}
