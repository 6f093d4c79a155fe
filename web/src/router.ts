import { useEffect, useState } from 'preact/hooks'

/**
 * Pages live in the URL's fragment (`/#/data-structures/{hash}?version=1-0-0`), so that every page
 * and every selection is a link that can be shared and reloaded, while the server's own paths
 * (`/micro/...`, `/api/...`, the collector's) stay exactly as they are.
 */
export interface Route {
  /** The path's segments, decoded: `['data-structures', 'abc']`. */
  readonly segments: readonly string[]
  readonly query: URLSearchParams
}

export function parseRoute(hash: string): Route {
  const text = hash.replace(/^#/, '')
  const queryAt = text.indexOf('?')
  const path = queryAt === -1 ? text : text.slice(0, queryAt)
  const query = new URLSearchParams(queryAt === -1 ? '' : text.slice(queryAt + 1))
  const segments = path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => {
      try {
        return decodeURIComponent(segment)
      } catch {
        return segment
      }
    })
  return { segments, query }
}

/** The link to a page: `href('data-structures', hash)` → `#/data-structures/{hash}`. */
export function href(
  ...parts: (string | Record<string, string | number | null | undefined>)[]
): string {
  const segments = parts.filter((p): p is string => typeof p === 'string')
  const query = new URLSearchParams()
  for (const part of parts)
    if (typeof part !== 'string')
      for (const [key, value] of Object.entries(part))
        if (value !== null && value !== undefined && value !== '') query.set(key, String(value))
  const search = query.toString()
  return `#/${segments.map(encodeURIComponent).join('/')}${search === '' ? '' : `?${search}`}`
}

export function navigate(link: string, options: { replace?: boolean } = {}): void {
  if (options.replace === true) history.replaceState(null, '', link)
  else history.pushState(null, '', link)
  window.dispatchEvent(new HashChangeEvent('hashchange'))
}

/** The current route, updated on every change of the fragment. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash))
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash))
    window.addEventListener('hashchange', changed)
    return () => window.removeEventListener('hashchange', changed)
  }, [])
  return route
}

/**
 * A link given in the URL (`?back=`) that a page may offer, if it is one of the console's own
 * pages (`#/...`); anything else (another site, a script) gives `fallback`, so that a shared link
 * cannot send the reader elsewhere.
 */
export function consoleLink(given: string | null, fallback: string): string {
  return given !== null && given.startsWith('#/') ? given : fallback
}
