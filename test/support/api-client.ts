import { systemClock } from '../../src/auth/clock.js'
import { createCredentialsService } from '../../src/auth/credentials.service.js'
import type { TestApp } from './test-app.js'
import { type AuthTables } from './all-tables.js'

export interface JsonResponse {
  status: number
  body: any
  headers: Headers
}

/** One HTTP request over loopback; the body is parsed when it is JSON, else kept as text. */
export async function requestJson(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<JsonResponse> {
  const headers: Record<string, string> = { ...init.headers }
  if (init.body !== undefined) headers['content-type'] ??= 'application/json'
  const body =
    typeof init.body === 'string'
      ? init.body
      : init.body === undefined
        ? undefined
        : JSON.stringify(init.body)
  const response = await fetch(url, { method: init.method ?? 'GET', headers, body })
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers }
}

/** A logged-in client of one organization's API, over real HTTP. */
export interface ApiClient {
  readonly organizationId: string
  readonly accessToken: string
  /** A request under `/api/msc/v1/organizations/{organizationId}`. */
  call(method: string, path: string, body?: unknown): Promise<JsonResponse>
  /** A request to any path of the server, with this client's bearer token. */
  callAt(method: string, absolutePath: string, body?: unknown): Promise<JsonResponse>
}

/** Logs in with an API key, on an in-process app or a `floe start` child process. */
export async function apiClient(
  server: { readonly baseUrl: string },
  organizationId: string,
  apiKeyId: string,
  apiKey: string,
): Promise<ApiClient> {
  const base = `${server.baseUrl}/api/msc/v1/organizations/${organizationId}`
  const tokenResponse = await fetch(`${base}/credentials/v3/token`, {
    headers: { 'X-API-Key-Id': apiKeyId, 'X-API-Key': apiKey },
  })
  const { accessToken } = (await tokenResponse.json()) as { accessToken: string }
  const callAt = (method: string, absolutePath: string, body?: unknown) =>
    requestJson(`${server.baseUrl}${absolutePath}`, {
      method,
      headers: { authorization: `Bearer ${accessToken}` },
      body,
    })
  return {
    organizationId,
    accessToken,
    callAt,
    call: (method, path, body) =>
      callAt(method, `/api/msc/v1/organizations/${organizationId}${path}`, body),
  }
}

/** The admin client of the organization the app created on its first start. */
export async function bootstrapAdmin(server: TestApp): Promise<ApiClient> {
  const startup = server.app.startup
  if (startup.kind !== 'initial') throw new Error('expected initial credentials')
  return apiClient(server, startup.organizationId, startup.apiKeyId, startup.apiKey)
}

/** An admin client of a second, new organization, for isolation tests. */
export async function otherOrganizationAdmin(server: TestApp): Promise<ApiClient> {
  const credentials = createCredentialsService({
    db: server.app.store.db.withTables<AuthTables>(),
    clock: systemClock,
  })
  const organization = await credentials.createOrganization('other')
  const key = await credentials.createApiKey({ organizationId: organization.id, isAdmin: true })
  return apiClient(server, organization.id, key.key.id, key.secret)
}
