import { createHmac, randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createCredentialsService } from '../src/auth/credentials.service.js'
import {
  apiClient,
  bootstrapAdmin,
  otherOrganizationAdmin,
  requestJson,
  type ApiClient,
  type JsonResponse,
} from './support/api-client.js'
import { objectSchema } from './support/registry-builders.js'
import { routeTable, type RouteEntry } from './support/route-table.js'
import {
  GUARDED_PREFIXES,
  IGLU_PREFIX,
  IGLU_PUBLIC,
  TTL,
  member,
  routeKey,
  ACCESS,
  accessOf,
  type Fixture,
  fillPath,
  bodyFor,
  queriesFor,
} from './support/route-access.js'
import { FakeClock, startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'
import { type AuthTables } from './support/all-tables.js'

// Issue 8, item 7: every route of the Console APIs against every kind of bad credential.
// The routes come from the router, so a new route cannot escape; `support/route-access.ts` says who may
// call each one.

/** The error code of either error body: `{message, code}` or the `{data, includes, errors}` envelope. */
function errorCodeOf(response: JsonResponse): unknown {
  const body = response.body as { code?: unknown; errors?: { code?: unknown }[] } | string
  return typeof body === 'object' && body !== null
    ? (body.code ?? body.errors?.[0]?.code)
    : undefined
}

const UNAUTHENTICATED = ['INVALID_TOKEN', 'Unauthorized']
const OTHER_ORGANIZATION = ['ORGANIZATION_MISMATCH', 'Forbidden']
const NOT_ADMIN = ['ADMIN_REQUIRED', 'Forbidden']

/** A token with the same header and claims, signed with another secret. */
function resigned(token: string): string {
  const [header, payload] = token.split('.')
  const signature = createHmac('sha256', 'another secret of at least thirty-two bytes')
    .update(`${header}.${payload}`)
    .digest('base64url')
  return `${header}.${payload}.${signature}`
}

describe('the authorization matrix of the Console APIs and the Iglu reads (PGlite)', () => {
  const clock = new FakeClock()
  let server: TestApp
  let routes: RouteEntry[]
  let igluRoutes: RouteEntry[]
  let igluPublicRoutes: RouteEntry[]
  let fixture: Fixture
  let admin: ApiClient
  let nonAdmin: ApiClient
  let otherOrganization: ApiClient
  let expiredToken: string
  let revokedToken: string
  let adminKey: { id: string; secret: string }
  /** API key secrets as Iglu clients send them (`apikey` header). */
  let secrets: { nonAdmin: string; revoked: string; otherOrganization: string }

  beforeAll(async () => {
    server = await startTestApp(testConfig({ tokenTtlSeconds: TTL }), { clock })
    const startup = server.app.startup
    if (startup.kind !== 'initial') throw new Error('expected initial credentials')
    adminKey = { id: startup.apiKeyId, secret: startup.apiKey }
    expiredToken = (await bootstrapAdmin(server)).accessToken
    clock.advanceSeconds(TTL + 1)

    admin = await bootstrapAdmin(server)
    otherOrganization = await otherOrganizationAdmin(server)
    const credentials = createCredentialsService({
      db: server.app.store.db.withTables<AuthTables>(),
      clock,
    })
    const organizationId = admin.organizationId
    const plain = await credentials.createApiKey({ organizationId, isAdmin: false })
    nonAdmin = await apiClient(server, organizationId, plain.key.id, plain.secret)
    const doomed = await credentials.createApiKey({ organizationId, isAdmin: true })
    revokedToken = (await apiClient(server, organizationId, doomed.key.id, doomed.secret))
      .accessToken
    await credentials.revokeApiKey(doomed.key.id)
    const spare = await credentials.createApiKey({ organizationId, isAdmin: false })
    const otherKey = await credentials.createApiKey({
      organizationId: otherOrganization.organizationId,
      isAdmin: true,
    })
    secrets = { nonAdmin: plain.secret, revoked: doomed.secret, otherOrganization: otherKey.secret }

    const schema = objectSchema('com.acme', 'matrix', '1-0-0', {
      step: { type: 'string', maxLength: 10 },
    })
    const validation = await admin.call('POST', '/data-structures/v1/validation-requests', {
      data: schema,
    })
    const { vendor, name, format, version } = schema.self
    const deployment = await admin.call('POST', '/data-structures/v1/deployment-requests', {
      source: 'VALIDATED',
      target: 'DEV',
      vendor,
      name,
      format,
      version,
    })
    const scenario = await admin.call('POST', '/tracking-scenarios/v1', {
      scenario: {
        name: 'Matrix',
        event: { source: `iglu:${vendor}/${name}/${format}/${version}` },
      },
    })
    const product = await admin.call('POST', '/data-products/v2', { name: 'Matrix' })
    const application = await admin.call('POST', '/source-apps/v1', { name: 'Matrix' })
    expect([
      validation.status,
      deployment.status,
      scenario.status,
      product.status,
      application.status,
    ]).toEqual([201, 201, 201, 201, 201])
    fixture = {
      organizationId,
      schema,
      hash: deployment.body.dataStructureHash,
      validationRequestId: validation.body.id,
      deploymentRequestId: deployment.body.id,
      scenarioId: scenario.body.data[0].id,
      dataProductId: product.body.data[0].id,
      sourceApplicationId: application.body.data[0].id,
      spareApiKeyId: spare.key.id,
    }
    const table = routeTable(server.app.http)
    routes = table.filter((route) =>
      GUARDED_PREFIXES.some((prefix) => route.url.startsWith(prefix)),
    )
    igluRoutes = table.filter(
      (route) => route.url.startsWith(IGLU_PREFIX) && !IGLU_PUBLIC.has(route.url),
    )
    igluPublicRoutes = table.filter((route) => IGLU_PUBLIC.has(route.url))
  })
  afterAll(async () => server?.close())

  it('reads the route table from the router, in step with the OpenAPI document', async () => {
    const openapi = (await requestJson(`${server.baseUrl}/openapi.json`)).body as {
      paths: Record<string, Record<string, unknown>>
    }
    const documented = Object.entries(openapi.paths)
      .filter(([path]) => GUARDED_PREFIXES.some((prefix) => path.startsWith(prefix)))
      .flatMap(([path, operations]) =>
        Object.keys(operations).map((method) =>
          routeKey(method.toUpperCase(), path.replace(/\{(\w+)\}/g, ':$1')),
        ),
      )
    const walked = new Set(routes.map((route) => routeKey(route.method, route.url)))
    expect(documented.filter((key) => !walked.has(key))).toEqual([])
    expect(routes.length).toBeGreaterThanOrEqual(documented.length)
  })

  it('classifies every route of the router, and nothing else', () => {
    const unclassified = routes
      .filter((route) => accessOf(route) === undefined)
      .map((route) => routeKey(route.method, route.url))
    expect(unclassified, 'routes without a row in ACCESS_TABLE: say who may call them').toEqual([])
    const walked = new Set(routes.map((route) => routeKey(route.method, route.url)))
    expect(
      [...ACCESS.keys()].filter((key) => !walked.has(key)),
      'rows of ACCESS_TABLE for routes that no longer exist',
    ).toEqual([])
  })

  it('refuses every guarded route without a valid token of the organization, and admin actions to non-admins', async () => {
    const problems: string[] = []
    let requests = 0
    const send = async (
      route: RouteEntry,
      query: string,
      token: string | null,
      headers: Record<string, string> = {},
    ) => {
      requests++
      const authorization: Record<string, string> =
        token === null ? {} : { authorization: `Bearer ${token}` }
      return requestJson(`${server.baseUrl}${fillPath(route.url, fixture)}${query}`, {
        method: route.method,
        headers: { ...authorization, ...headers },
        body: bodyFor(route, fixture),
      })
    }
    const expectAnswer = (
      label: string,
      response: JsonResponse,
      status: number,
      codes: readonly string[] | null,
    ) => {
      const code = errorCodeOf(response)
      if (response.status !== status || (codes !== null && !codes.includes(String(code))))
        problems.push(
          `${label}: expected ${status} ${codes?.join('|') ?? ''}, got ${response.status} ${String(code)}`,
        )
    }
    const expectThrough = (label: string, response: JsonResponse) => {
      if (response.status === 401 || response.status === 403 || response.status >= 500)
        problems.push(
          `${label}: expected the guard to let it through, got ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`,
        )
    }

    for (const route of routes) {
      // A route missing from the table fails the classification test; here it must at least be guarded.
      const access = accessOf(route) ?? member
      const withBody = route.method !== 'HEAD'
      for (const query of queriesFor(route)) {
        const label = (who: string) => `${route.method} ${route.url}${query} with ${who}`
        const refusals = [
          ['no token', null],
          ['a bad signature', resigned(admin.accessToken)],
          ['an expired token', expiredToken],
          ['a revoked key', revokedToken],
        ] as const
        if (access.kind === 'link') {
          // A link Floe did not give is refused, whatever bearer token comes with it.
          for (const [who, token] of [
            ['no token', null],
            ['an admin token', admin.accessToken],
            ["another organization's token", otherOrganization.accessToken],
          ] as const) {
            const answer = await send(route, query, token)
            if (answer.status !== 403 || answer.body?.errors?.[0]?.code !== 403)
              problems.push(`${label(who)}: expected 403, got ${answer.status}`)
          }
          continue
        }
        if (access.kind === 'public') {
          for (const [who, token] of [
            ...refusals,
            ["another organization's token", otherOrganization.accessToken] as const,
          ]) {
            expectAnswer(
              label(who),
              await send(route, query, token),
              401,
              withBody ? ['INVALID_API_KEY'] : null,
            )
          }
          const exchanged = await send(route, query, null, {
            'X-API-Key-Id': adminKey.id,
            'X-API-Key': adminKey.secret,
          })
          expectAnswer(label('its API key'), exchanged, 200, null)
          continue
        }
        for (const [who, token] of refusals)
          expectAnswer(
            label(who),
            await send(route, query, token),
            401,
            withBody ? UNAUTHENTICATED : null,
          )
        if (access.kind === 'any-token') {
          for (const [who, token] of [
            ["another organization's token", otherOrganization.accessToken],
            ['a non-admin token', nonAdmin.accessToken],
            ['an admin token', admin.accessToken],
          ] as const)
            expectThrough(label(who), await send(route, query, token))
          continue
        }
        expectAnswer(
          label("another organization's token"),
          await send(route, query, otherOrganization.accessToken),
          403,
          withBody ? OTHER_ORGANIZATION : null,
        )
        const byNonAdmin = await send(route, query, nonAdmin.accessToken)
        if (access.kind === 'admin')
          expectAnswer(label('a non-admin token'), byNonAdmin, 403, withBody ? NOT_ADMIN : null)
        else expectThrough(label('a non-admin token'), byNonAdmin)
        expectThrough(label('an admin token'), await send(route, query, admin.accessToken))
      }
    }
    expect(problems).toEqual([])
    // Every route, in each query variant, with at least six credentials.
    expect(requests).toBeGreaterThanOrEqual(routes.length * 6)
    console.info(
      `auth matrix: ${routes.length} routes, ${requests} requests, every answer as expected`,
    )
  })

  // The Iglu Server-compatible reads take the resolver's `apikey` header (an API key secret of the
  // organization) or a bearer token; every route of their prefix is walked from the router as well.
  const igluPath = (url: string) =>
    url.replace(
      /:(\w+)/g,
      (_, name: string) =>
        ({ organizationId: fixture.organizationId, env: 'dev', ...fixture.schema.self })[name] ??
        `unknown-${name}`,
    )

  it('answers the Iglu health check without credentials, and nothing else of the Iglu routes', async () => {
    expect(igluPublicRoutes.map((route) => route.method).sort()).toEqual([
      'GET',
      'GET',
      'HEAD',
      'HEAD',
    ])
    for (const route of igluPublicRoutes)
      expect(
        (await requestJson(`${server.baseUrl}${igluPath(route.url)}`, { method: route.method }))
          .status,
      ).toBe(200)
  })

  it('shows every Iglu read without a valid API key secret of the organization nothing, and refuses bad tokens', async () => {
    expect(igluRoutes.length, 'the Iglu routes, read from the router').toBeGreaterThanOrEqual(5)
    const problems: string[] = []
    let requests = 0
    const isKeygen = (route: RouteEntry) => route.url.endsWith('/auth/keygen')
    const send = async (route: RouteEntry, headers: Record<string, string>) => {
      requests++
      // Deleting a key names one (here none that exists); creating keys names a vendor prefix.
      const query = isKeygen(route) && route.method === 'DELETE' ? `?key=${randomUUID()}` : ''
      const { vendor, name, format, version } = fixture.schema.self
      const body = isKeygen(route)
        ? { vendorPrefix: 'com.acme' }
        : route.url.endsWith('/validate/instance')
          ? { schema: `iglu:${vendor}/${name}/${format}/${version}`, data: {} }
          : fixture.schema
      return requestJson(`${server.baseUrl}${igluPath(route.url)}${query}`, {
        method: route.method,
        headers,
        // Validation validates the deployed schema, and writes write it again (to DEV).
        ...(route.method === 'POST' || route.method === 'PUT' ? { body } : {}),
      })
    }
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
    for (const route of igluRoutes) {
      const label = (who: string) => `${route.method} ${route.url} with ${who}`
      // As on Iglu Server, a reader without a key of the organization reads anonymously: every
      // schema is private, so the listing of everything is empty, the server's description counts
      // no schema, and the rest is 404; validation wants a key (403).
      // Writes, key management and validation want a key: 403, as Iglu Server refuses the anonymous.
      const describesServer = route.url.endsWith('/meta/server')
      const writes =
        route.method === 'PUT' || (route.method === 'POST' && route.url.endsWith('/schemas'))
      const anonymous =
        writes || isKeygen(route)
          ? 403
          : route.url.endsWith('/schemas') || describesServer
            ? 200
            : route.url.endsWith('/validate/schema/jsonschema') ||
                route.url.includes('/schemas/validate/')
              ? 403
              : 404
      const refused: [string, Record<string, string>, number][] = [
        ['no credentials', {}, anonymous],
        ['a wrong secret', { apikey: 'floe_not-a-key' }, anonymous],
        ["another organization's secret", { apikey: secrets.otherOrganization }, anonymous],
        ["a revoked key's secret", { apikey: secrets.revoked }, anonymous],
        ['a bad signature', bearer(resigned(admin.accessToken)), 401],
        ['an expired token', bearer(expiredToken), 401],
        ['a revoked key', bearer(revokedToken), 401],
        ["another organization's token", bearer(otherOrganization.accessToken), 403],
      ]
      for (const [who, headers, status] of refused) {
        const response = await send(route, headers)
        if (response.status !== status)
          problems.push(`${label(who)}: expected ${status}, got ${response.status}`)
        else if (describesServer && status === 200 && route.method === 'GET') {
          if (response.body?.schemaCount !== 0)
            problems.push(
              `${label(who)}: expected no schema counted, got ${JSON.stringify(response.body)}`,
            )
        } else if (
          status === 200 &&
          route.method === 'GET' &&
          JSON.stringify(response.body) !== '[]'
        )
          problems.push(
            `${label(who)}: expected an empty listing, got ${JSON.stringify(response.body)}`,
          )
      }
      // Every path names the deployed schema (or its vendor, name, environment): a read answers
      // 200, a write of it to DEV 200 (updated); keys are managed by admin keys only, and deleting
      // a key that does not exist is 404.
      const keygen = (admin: boolean) =>
        !isKeygen(route) ? 200 : !admin ? 403 : route.method === 'DELETE' ? 404 : 200
      const allowed: [string, Record<string, string>, number][] = [
        ["the admin key's secret", { apikey: adminKey.secret }, keygen(true)],
        ["a non-admin key's secret", { apikey: secrets.nonAdmin }, keygen(false)],
        ['an admin token', bearer(admin.accessToken), keygen(true)],
      ]
      for (const [who, headers, status] of allowed) {
        const response = await send(route, headers)
        if (response.status !== status)
          problems.push(
            `${label(who)}: expected the guard to let it through to a ${status}, got ${response.status}`,
          )
      }
    }
    expect(problems).toEqual([])
    expect(requests).toBe(igluRoutes.length * 11)
    console.info(
      `auth matrix (Iglu): ${igluRoutes.length} routes, ${requests} requests, every answer as expected`,
    )
  })
})
