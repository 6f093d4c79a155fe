import type { Pick } from './config-values.js'

/**
 * The browser origins whose pages may call the inspection API (`/local`, `/micro`) besides the
 * server's own and loopback ones (`http://localhost:3000`): a list, or any origin at all.
 */
export interface InspectionApiOrigins {
  readonly any: boolean
  /** Each as `scheme://host[:port]`, as a browser sends it in `Origin`. */
  readonly origins: readonly string[]
}

/** `--inspection-origins` / FLOE_INSPECTION_ORIGINS: origins separated by commas, or `*`. */
export function parseInspectionOrigins(
  flag: string | undefined,
  pick: Pick,
  problems: string[],
): InspectionApiOrigins {
  const raw = pick(flag, 'FLOE_INSPECTION_ORIGINS')?.trim() ?? ''
  if (raw === '*') return { any: true, origins: [] }
  const origins: string[] = []
  for (const item of raw.split(',').map((part) => part.trim())) {
    if (item === '') continue
    let url: URL | null = null
    try {
      url = new URL(item)
    } catch {
      // named below
    }
    const isOrigin =
      url !== null &&
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.pathname === '/' &&
      url.search === '' &&
      url.hash === '' &&
      url.username === '' &&
      url.password === ''
    if (isOrigin) origins.push(url!.origin)
    else
      problems.push(
        `--inspection-origins (FLOE_INSPECTION_ORIGINS): ${JSON.stringify(item.slice(0, 200))} is not an origin such as https://app.example.com (or * for any)`,
      )
  }
  return { any: false, origins }
}
