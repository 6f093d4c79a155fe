import { systemClock } from '../../src/auth/clock.js'
import { createCredentialsService } from '../../src/auth/credentials.service.js'
import type { FloeApp } from '../../src/app.js'
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
  return { status: response.status, body: parsed(text), headers: response.headers }
}

/** A server the client talks to: in this process (requests injected, no socket), or a child process. */
export interface ApiServer {
  readonly baseUrl: string
  readonly app?: Pick<FloeApp, 'http'>
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * One request: injected into an in-process app (Fastify's inject: the whole request path of
 * routing, hooks, parsers and serialisation, without a socket; the Host header is the listener's),
 * else over loopback.
 */
async function send(
  server: ApiServer,
  method: string,
  absolutePath: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<JsonResponse> {
  if (server.app === undefined)
    return requestJson(`${server.baseUrl}${absolutePath}`, { method, headers, body })
  const all: Record<string, string> = { host: new URL(server.baseUrl).host, ...headers }
  if (body !== undefined) all['content-type'] ??= 'application/json'
  const response = await server.app.http.inject({
    method: method as 'GET',
    url: absolutePath,
    headers: all,
    ...(body === undefined
      ? {}
      : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  })
  const answered = new Headers()
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined) continue
    for (const one of Array.isArray(value) ? value : [String(value)]) answered.append(name, one)
  }
  return { status: response.statusCode, body: parsed(response.body), headers: answered }
}

/** A logged-in client of one organization's API. */
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
  server: ApiServer,
  organizationId: string,
  apiKeyId: string,
  apiKey: string,
): Promise<ApiClient> {
  const tokenResponse = await send(
    server,
    'GET',
    `/api/msc/v1/organizations/${organizationId}/credentials/v3/token`,
    { 'X-API-Key-Id': apiKeyId, 'X-API-Key': apiKey },
  )
  const { accessToken } = tokenResponse.body as { accessToken: string }
  const callAt = (method: string, absolutePath: string, body?: unknown) =>
    send(server, method, absolutePath, { authorization: `Bearer ${accessToken}` }, body)
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

/** A client of a new non-admin key of `organizationId` (it may not deploy to PROD, among others). */
export async function nonAdminClient(server: TestApp, organizationId: string): Promise<ApiClient> {
  const credentials = createCredentialsService({
    db: server.app.store.db.withTables<AuthTables>(),
    clock: systemClock,
  })
  const key = await credentials.createApiKey({ organizationId, isAdmin: false })
  return apiClient(server, organizationId, key.key.id, key.secret)
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
