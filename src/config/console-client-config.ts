import { isUuid } from '../shared/index.js'
import type { Env } from './config-values.js'

/** Where `floe schemas push|pull` find a Floe (or a Console API) and the key to use there. */
export interface ConsoleClientConfig {
  /** The server's root, `http://localhost:9090` (the Console API is under `/api/msc/v1`). */
  readonly serverUrl: string
  readonly organizationId: string
  /** A v3 key's id, or null for a v2 key (the secret alone). */
  readonly apiKeyId: string | null
  readonly apiKey: string
  /** How long one request may take, its answer read whole (`--timeout`, default 60). */
  readonly timeoutSeconds: number
}

export interface ConsoleClientFlags {
  readonly server?: string
  readonly org?: string
  readonly keyId?: string
  readonly key?: string
  readonly timeout?: string
}

/** The seconds one request of `push`, `pull` or `mcp` may take when `--timeout` does not say. */
export const DEFAULT_CLIENT_TIMEOUT_SECONDS = 60

/**
 * Flags first, then the variables snowtype reads (`SNOWPLOW_CONSOLE_API_URL`, which ends in
 * `/api/msc`, `SNOWPLOW_CONSOLE_API_KEY_ID`, `SNOWPLOW_CONSOLE_API_KEY`) and the organization's
 * (`SNOWPLOW_CONSOLE_ORG_ID`); every missing or malformed value is named at once.
 */
export function parseConsoleClientConfig(
  flags: ConsoleClientFlags,
  env: Env,
): { config: ConsoleClientConfig | null; problems: string[] } {
  const problems: string[] = []
  const given = (flag: string | undefined, variable: string) =>
    flag?.trim() || env[variable]?.trim() || undefined
  const rawUrl = flags.server?.trim() || env.SNOWPLOW_CONSOLE_API_URL?.trim()
  const organizationId = given(flags.org, 'SNOWPLOW_CONSOLE_ORG_ID')
  const apiKeyId = given(flags.keyId, 'SNOWPLOW_CONSOLE_API_KEY_ID') ?? null
  const apiKey = given(flags.key, 'SNOWPLOW_CONSOLE_API_KEY')
  let serverUrl: string | null = null
  if (rawUrl === undefined)
    problems.push(
      'the server: --server, or SNOWPLOW_CONSOLE_API_URL (http://localhost:9090/api/msc)',
    )
  else {
    try {
      const url = new URL(rawUrl)
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http')
      serverUrl = `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/api\/msc(\/v1)?$/, '')}`
    } catch {
      problems.push(`the server URL ${JSON.stringify(rawUrl)} is not an http(s) URL`)
    }
  }
  if (organizationId === undefined)
    problems.push('the organization: --org, or SNOWPLOW_CONSOLE_ORG_ID')
  else if (!isUuid(organizationId)) problems.push('the organization id must be a UUID')
  if (apiKey === undefined)
    problems.push(
      'the API key: --key, or SNOWPLOW_CONSOLE_API_KEY (with --key-id or SNOWPLOW_CONSOLE_API_KEY_ID for a v3 key)',
    )
  if (apiKeyId !== null && !isUuid(apiKeyId)) problems.push('the API key id must be a UUID')
  const timeoutSeconds =
    flags.timeout === undefined ? DEFAULT_CLIENT_TIMEOUT_SECONDS : Number(flags.timeout)
  if (!(timeoutSeconds > 0 && timeoutSeconds <= 3600))
    problems.push(
      `--timeout is a number of seconds, more than 0 and at most 3600, not ${flags.timeout}`,
    )
  if (
    problems.length > 0 ||
    serverUrl === null ||
    organizationId === undefined ||
    apiKey === undefined
  )
    return { config: null, problems }
  return { config: { serverUrl, organizationId, apiKeyId, apiKey, timeoutSeconds }, problems }
}
