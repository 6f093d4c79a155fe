import { randomUUID } from 'node:crypto'
import type { objectSchema } from './registry-builders.js'
import type { RouteEntry } from './route-table.js'

// Who may call each route of the Console APIs and the Iglu reads, and how the authorization matrix
// (`test/auth-matrix.http.test.ts`) calls each: the path it fills in and the body it sends.

const MSC = '/api/msc/v1/organizations/:organizationId'
const LEGACY = '/api/schemas/v1/organizations/:organizationId'
export const GUARDED_PREFIXES = ['/api/msc/', '/api/schemas/']
export const IGLU_PREFIX = '/iglu/'
/** Iglu routes open to anyone: the health check, which Iglu Server answers without credentials (schemas.md §2.4). */
export const IGLU_PUBLIC = new Set([
  `${IGLU_PREFIX}:organizationId/:env/api/meta/health`,
  `${IGLU_PREFIX}:organizationId/:env/api/meta/health/db`,
])
export const TTL = 600

export type Access =
  | { readonly kind: 'public'; readonly reason: string }
  /** Any valid token of the organization in the path. */
  | { readonly kind: 'member' }
  /** Only a token of an admin key of that organization; `action` is what the request does. */
  | { readonly kind: 'admin'; readonly action: string }
  /** Any valid token, of whichever organization: the route answers about the token itself. */
  | { readonly kind: 'any-token'; readonly reason: string }
  /** No token: the one-time token in its path is the credential, and no bearer token replaces it. */
  | { readonly kind: 'link'; readonly reason: string }

export const member: Access = { kind: 'member' }
const tokenExchange: Access = {
  kind: 'public',
  reason:
    'the token exchange is how a caller gets a token: it checks an API key instead (console-api.md, path 1)',
}
const ownOrganizations: Access = {
  kind: 'any-token',
  reason: "it lists the token's own organization (snowplow-cli status)",
}
const uploadLink: Access = {
  kind: 'link',
  reason:
    'snowplow-cli sends a trigger image to the link POST images/v1 gave, with no token (for Snowplow it is Cloudflare)',
}
const keyManagement: Access = {
  kind: 'admin',
  action: 'manage API keys (floe keys ... over HTTP)',
}
const prodDeployment: Access = {
  kind: 'admin',
  action: 'deploy DEV → PROD (data-structures spec, Authentication 4)',
}

/**
 * Who may call each route. HEAD follows GET, since Fastify derives one from the other. A route of the
 * router missing here, or a row whose route is gone, fails the test.
 */
const ACCESS_TABLE: readonly (readonly [methods: string, url: string, access: Access])[] = [
  ['GET', '/api/msc/v1/organizations', ownOrganizations],
  ['GET', '/api/msc/v1/organizations/', ownOrganizations],
  ['GET POST', `${MSC}/credentials/v2/token`, tokenExchange],
  ['GET POST', `${MSC}/credentials/v3/token`, tokenExchange],
  ['GET POST', `${MSC}/credentials/v2/api-keys`, keyManagement],
  ['DELETE', `${MSC}/credentials/v2/api-keys/:apiKeyId`, keyManagement],
  ['POST', `${MSC}/compatibility-checks`, member],
  ['GET', `${MSC}/data-structures/v1`, member],
  ['GET', `${MSC}/data-structures/v1/`, member],
  ['GET', `${MSC}/data-structures/v1/schemas/versions`, member],
  ['POST', `${MSC}/data-structures/v1/validation-requests`, member],
  ['POST', `${MSC}/data-structures/v1/validation-requests/sync`, member],
  ['GET', `${MSC}/data-structures/v1/validation-requests/:id`, member],
  ['POST', `${MSC}/data-structures/v1/deployment-requests`, prodDeployment],
  ['POST', `${MSC}/data-structures/v1/deployment-requests/sync`, prodDeployment],
  ['GET', `${MSC}/data-structures/v1/deployment-requests/:id`, member],
  ['GET', `${MSC}/data-structures/v1/:hash`, member],
  ['GET', `${MSC}/data-structures/v1/:hash/versions`, member],
  ['GET', `${MSC}/data-structures/v1/:hash/versions/:version`, member],
  ['GET', `${MSC}/data-structures/v1/:hash/deployments`, member],
  ['PUT PATCH', `${MSC}/data-structures/v1/:hash/meta`, member],
  ['GET POST', `${MSC}/data-products/v2`, member],
  ['GET POST', `${MSC}/data-products/v2/`, member],
  ['GET PUT DELETE', `${MSC}/data-products/v2/:id`, member],
  ['GET POST', `${MSC}/event-specs/v1`, member],
  ['GET POST', `${MSC}/event-specs/v1/`, member],
  ['POST', `${MSC}/event-specs/v1/compatibility`, member],
  ['POST', `${MSC}/event-specs/v1/publish`, member],
  ['GET PUT DELETE', `${MSC}/event-specs/v1/:id`, member],
  // The same routes under the name data products link them by.
  ['GET POST', `${MSC}/tracking-scenarios/v2`, member],
  ['GET POST', `${MSC}/tracking-scenarios/v2/`, member],
  ['POST', `${MSC}/tracking-scenarios/v2/publish`, member],
  ['GET PUT DELETE', `${MSC}/tracking-scenarios/v2/:id`, member],
  ['GET POST', `${MSC}/tracking-scenarios/v1`, member],
  ['GET POST', `${MSC}/tracking-scenarios/v1/`, member],
  ['GET PUT DELETE', `${MSC}/tracking-scenarios/v1/:trackingScenarioId`, member],
  ['GET POST', `${MSC}/source-apps/v1`, member],
  ['GET POST', `${MSC}/source-apps/v1/`, member],
  ['GET PUT DELETE', `${MSC}/source-apps/v1/:id`, member],
  ['POST', `${MSC}/data-structures/v1/schema-migrations`, member],
  ['GET', `${MSC}/data-structure-drafts/v1/schemas`, member],
  ['GET', `${MSC}/destinations/v3`, member],
  ['GET POST', `${MSC}/images/v1`, member],
  ['GET POST', `${MSC}/images/v1/`, member],
  ['GET', `${MSC}/images/v1/:imageId/:variant`, member],
  ['POST', `${MSC}/images/v1/:imageId/confirm-upload`, member],
  ['POST', `${MSC}/images/v1/:imageId/upload/:token`, uploadLink],
  ['POST', `${LEGACY}/validation-requests`, member],
  ['POST', `${LEGACY}/validation-requests/sync`, member],
  ['GET', `${LEGACY}/validation-requests/:id`, member],
  ['POST', `${LEGACY}/deployment-requests`, prodDeployment],
  ['POST', `${LEGACY}/deployment-requests/sync`, prodDeployment],
  ['GET', `${LEGACY}/deployment-requests/:id`, member],
  ['GET', `${LEGACY}/schemas`, member],
  ['GET', `${LEGACY}/schemas/`, member],
  ['GET', `${LEGACY}/schemas/:hash`, member],
  ['GET', `${LEGACY}/schemas/:hash/versions`, member],
  ['GET', `${LEGACY}/schemas/:hash/versions/:version`, member],
  ['GET', `${LEGACY}/schemas/:hash/deployments`, member],
  ['PUT PATCH', `${LEGACY}/schemas/:hash/meta`, member],
]

export const routeKey = (method: string, url: string) => `${method} ${url}`
export const ACCESS = new Map(
  ACCESS_TABLE.flatMap(([methods, url, access]) =>
    methods.split(' ').map((method) => [routeKey(method, url), access] as const),
  ),
)
export const accessOf = (route: RouteEntry) =>
  ACCESS.get(routeKey(route.method === 'HEAD' ? 'GET' : route.method, route.url))

/** What the test owns in the organization under test, so that paths name real resources. */
export interface Fixture {
  readonly organizationId: string
  readonly schema: ReturnType<typeof objectSchema>
  readonly hash: string
  readonly validationRequestId: string
  readonly deploymentRequestId: string
  readonly scenarioId: string
  readonly dataProductId: string
  readonly sourceApplicationId: string
  /** A key the admin control request may revoke. */
  readonly spareApiKeyId: string
}

/** The id a path parameter stands for: by name, or for `:id` by the resource named before it. */
export function fillPath(url: string, fixture: Fixture): string {
  const segments = url.split('/')
  return segments
    .map((segment, i) => {
      if (!segment.startsWith(':')) return segment
      const resource = segments
        .slice(0, i)
        .reverse()
        .find((s) => !/^v\d+$/.test(s))
      const ids: Record<string, string | undefined> = {
        organizationId: fixture.organizationId,
        apiKeyId: fixture.spareApiKeyId,
        hash: fixture.hash,
        version: fixture.schema.self.version,
        trackingScenarioId: fixture.scenarioId,
        'id@validation-requests': fixture.validationRequestId,
        'id@deployment-requests': fixture.deploymentRequestId,
        'id@data-products': fixture.dataProductId,
        'id@source-apps': fixture.sourceApplicationId,
        'id@event-specs': fixture.scenarioId,
      }
      const name = segment.slice(1)
      return ids[name] ?? ids[`${name}@${resource}`] ?? randomUUID()
    })
    .join('/')
}

/** A body that the handler accepts, aimed at the admin action where the route has one. */
export function bodyFor(route: RouteEntry, fixture: Fixture): unknown {
  if (route.method === 'GET' || route.method === 'HEAD' || route.method === 'DELETE')
    return undefined
  const { url } = route
  const { vendor, name, format, version } = fixture.schema.self
  if (url.endsWith('/token')) return undefined
  if (url.endsWith('/api-keys')) return { description: 'auth matrix' }
  if (url.endsWith('/compatibility-checks'))
    return { candidate: { type: 'string' }, reference: { type: 'string' } }
  const specs = /\/(event-specs\/v1|tracking-scenarios\/v2)/
  if (specs.test(url) && url.endsWith('/compatibility'))
    return { spec: { event: { source: `iglu:${vendor}/${name}/${format}/${version}` } } }
  if (specs.test(url) && url.endsWith('/publish')) return { eventSpecIds: [fixture.scenarioId] }
  if (specs.test(url)) return { spec: { name: `Matrix spec ${randomUUID()}` } }
  if (/\/validation-requests(\/sync)?$/.test(url)) return { data: fixture.schema }
  if (/\/deployment-requests(\/sync)?$/.test(url))
    return { source: 'DEV', target: 'PROD', vendor, name, format, version, message: 'auth matrix' }
  if (url.endsWith('/meta')) return { hidden: false }
  if (url.endsWith('/schema-migrations'))
    return {
      destinationType: 'snowflake',
      sourceSchemaKey: { vendor, name, format, version },
      targetSchema: fixture.schema,
    }
  if (url.includes('/tracking-scenarios/')) return { scenario: { name: `Matrix ${randomUUID()}` } }
  if (url.includes('/data-products/')) return { name: 'Matrix product' }
  if (url.includes('/source-apps/')) return { name: 'Matrix app' }
  if (/\/images\/v1\/?$/.test(url)) return undefined
  if (url.endsWith('/confirm-upload')) return { hash: 'a'.repeat(64) }
  if (url.endsWith('/upload/:token')) return {}
  throw new Error(`no request body for ${route.method} ${url}: add one`)
}

/** Query strings to try: asynchronous deployment requests must refuse at once too, not accept and fail later. */
export const queriesFor = (route: RouteEntry) =>
  /\/deployment-requests$/.test(route.url) ? ['', '?async=true'] : ['']
