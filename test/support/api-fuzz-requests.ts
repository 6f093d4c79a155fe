import fc from 'fast-check'
import { SELF_DESC_METASCHEMA_URI } from '../../src/iglu/self-describing.js'
import { percentEncodeUtf8 } from './percent-encoding.js'

/** Ids of things that exist, so that generated requests reach real rows as well as missing ones. */
export interface FuzzTargets {
  readonly organizationId: string
  readonly otherOrganizationId: string
  readonly dataStructureHash: string
  readonly scenarioId: string
  readonly dataProductId: string
  readonly sourceApplicationId: string
  readonly adminToken: string
  readonly userToken: string
}

export interface ApiFuzzRequest {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: string | undefined
}

const schema = (version: string) => ({
  $schema: SELF_DESC_METASCHEMA_URI,
  self: { vendor: 'com.fuzz', name: 'thing', format: 'jsonschema', version },
  description: 'A fuzzed thing',
  type: 'object',
  properties: { label: { type: 'string', maxLength: 20, description: 'label' } },
  additionalProperties: false,
})

/** Valid bodies of each writing route, the starting point of mutations. */
const TEMPLATES: Record<string, unknown> = {
  validation: {
    meta: { hidden: false, schemaType: 'event', customData: { team: 'fuzz' } },
    data: schema('1-0-1'),
  },
  deployment: {
    source: 'VALIDATED',
    target: 'DEV',
    vendor: 'com.fuzz',
    name: 'thing',
    format: 'jsonschema',
    version: '1-0-1',
    message: 'fuzz',
  },
  meta: { hidden: false, schemaType: 'entity', customData: {} },
  scenario: {
    scenario: {
      name: 'Fuzzed',
      description: 'd',
      status: 'draft',
      event: {
        source: 'iglu:com.fuzz/thing/jsonschema/1-0-0',
        schema: { type: 'object', properties: { label: { enum: ['a'] } } },
      },
      entities: { tracked: [], enriched: [] },
    },
    message: 'm',
  },
  dataProduct: { name: 'Fuzz', domain: 'd', owner: 'o@fuzz.test', sourceApplications: [] },
  sourceApplication: { name: 'Web', appIds: ['web'], entities: { tracked: [], enriched: [] } },
  compatibility: { candidate: { type: 'string' }, reference: { type: ['string', 'null'] } },
  eventSpec: {
    spec: {
      id: '00000000-0000-4000-8000-000000000000',
      name: 's',
      status: 'draft',
      version: '0',
      event: { source: 'iglu:com.fuzz/thing/jsonschema/1-0-0', schema: { type: 'object' } },
    },
  },
}

/** Every path to a node of a JSON value. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [prefix]
  const entries = Array.isArray(value)
    ? value.map((v, i) => [i, v] as const)
    : Object.entries(value)
  return [prefix, ...entries.flatMap(([key, child]) => paths(child, [...prefix, key]))]
}

/** The template with some nodes replaced by generated values or removed. */
function mutate(
  template: unknown,
  edits: readonly [number, 'replace' | 'remove', unknown][],
): unknown {
  let value = structuredClone(template)
  for (const [index, action, replacement] of edits) {
    const all = paths(value)
    const path = all[index % all.length] ?? []
    if (path.length === 0) {
      value = replacement
      continue
    }
    let parent: any = value
    for (const key of path.slice(0, -1)) parent = parent[key]
    const last = path[path.length - 1]!
    if (action === 'remove' && !Array.isArray(parent)) delete parent[last]
    else parent[last] = replacement
  }
  return value
}

const oddText = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', ' ', '\u0000', '../..', '%00', 'null', '1e999', '-1', 'x'.repeat(3000)),
)
const leaf = fc.oneof(
  oddText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.json({ maxDepth: 2 }).map((s) => JSON.parse(s) as unknown),
  fc.anything({ maxDepth: 2 }),
)

const body = (template: unknown): fc.Arbitrary<string | undefined> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .array(
          fc.tuple(fc.nat(), fc.constantFrom<'replace' | 'remove'>('replace', 'remove'), leaf),
          { minLength: 1, maxLength: 3 },
        )
        .map((edits) => JSON.stringify(mutate(template, edits))),
    },
    { weight: 1, arbitrary: fc.constant(JSON.stringify(template)) },
    { weight: 2, arbitrary: fc.json({ maxDepth: 4 }) },
    { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 100, max: 5000 })
        .map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 100, max: 3000 })
        .map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        undefined,
        '',
        '{',
        '{"data":',
        '\uFEFF{}',
        '{"__proto__":{"polluted":1}}',
        '{"constructor":{"prototype":{"x":1}}}',
      ),
    },
  )

const segment = (...known: string[]) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...known) },
    { weight: 1, arbitrary: oddText.map(percentEncodeUtf8) },
    { weight: 1, arbitrary: fc.uuid() },
  )

const query = fc.oneof(
  { weight: 3, arbitrary: fc.constant('') },
  {
    weight: 2,
    arbitrary: fc
      .array(
        fc.tuple(
          fc.constantFrom(
            'patch',
            'async',
            'status',
            'withHistory',
            'withLatestHistory',
            'dataProductId',
            'dataStructureId',
            'dataStructureVersion',
            'limit',
            'x',
          ),
          oddText.map(percentEncodeUtf8),
        ),
        { maxLength: 3 },
      )
      .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`),
  },
)

/** Generated requests against the registry, scenario, data product and compatibility APIs. */
export function apiRequest(targets: FuzzTargets): fc.Arbitrary<ApiFuzzRequest> {
  const org = segment(
    targets.organizationId,
    targets.organizationId,
    targets.organizationId,
    targets.otherOrganizationId,
  )
  const hash = segment(targets.dataStructureHash)
  const version = segment('1-0-0', '1-0-1', '01-0-0', '2-0-0', '1-0')
  const scenarioId = segment(targets.scenarioId)
  const productId = segment(targets.dataProductId)
  const appId = segment(targets.sourceApplicationId)
  const env = segment('DEV', 'PROD', 'dev')

  type Route = [method: string[], path: fc.Arbitrary<string>, template: unknown]
  const msc = (tail: fc.Arbitrary<string>) =>
    fc.tuple(org, tail).map(([o, t]) => `/api/msc/v1/organizations/${o}${t}`)
  const routes: Route[] = [
    [['GET'], msc(fc.constant('/data-structures/v1')), null],
    [['GET', 'DELETE'], msc(hash.map((h) => `/data-structures/v1/${h}`)), null],
    [
      ['GET'],
      msc(fc.tuple(hash, version).map(([h, v]) => `/data-structures/v1/${h}/versions/${v}`)),
      null,
    ],
    [['GET'], msc(hash.map((h) => `/data-structures/v1/${h}/versions`)), null],
    [['GET'], msc(fc.constant('/data-structures/v1/schemas/versions')), null],
    [['GET'], msc(hash.map((h) => `/data-structures/v1/${h}/deployments`)), null],
    [['PUT', 'PATCH'], msc(hash.map((h) => `/data-structures/v1/${h}/meta`)), TEMPLATES.meta],
    [['POST'], msc(fc.constant('/data-structures/v1/validation-requests')), TEMPLATES.validation],
    [['POST'], msc(fc.constant('/data-structures/v1/deployment-requests')), TEMPLATES.deployment],
    [['GET'], msc(fc.uuid().map((id) => `/data-structures/v1/validation-requests/${id}`)), null],
    [['POST'], msc(fc.constant('/compatibility-checks')), TEMPLATES.compatibility],
    [['POST'], msc(fc.constant('/event-specs/v1/compatibility')), TEMPLATES.eventSpec],
    [['GET'], msc(fc.constant('/event-specs/v1')), null],
    [['GET', 'POST'], msc(fc.constant('/tracking-scenarios/v1')), TEMPLATES.scenario],
    [
      ['GET', 'PUT', 'DELETE'],
      msc(scenarioId.map((id) => `/tracking-scenarios/v1/${id}`)),
      TEMPLATES.scenario,
    ],
    [['GET', 'POST'], msc(fc.constant('/data-products/v2')), TEMPLATES.dataProduct],
    [
      ['GET', 'PUT', 'DELETE'],
      msc(productId.map((id) => `/data-products/v2/${id}`)),
      TEMPLATES.dataProduct,
    ],
    [['GET', 'POST'], msc(fc.constant('/source-apps/v1')), TEMPLATES.sourceApplication],
    [
      ['GET', 'PUT', 'DELETE'],
      msc(appId.map((id) => `/source-apps/v1/${id}`)),
      TEMPLATES.sourceApplication,
    ],
    [
      ['GET'],
      fc
        .tuple(org, env)
        .map(([o, e]) => `/iglu/${o}/${e}/api/schemas/com.fuzz/thing/jsonschema/1-0-0`),
      null,
    ],
    [['GET'], fc.tuple(org, env).map(([o, e]) => `/iglu/${o}/${e}/api/schemas/com.fuzz`), null],
    [['GET'], org.map((o) => `/api/schemas/v1/organizations/${o}/schemas`), null],
  ]

  const authorization = fc.oneof(
    { weight: 12, arbitrary: fc.constant(`Bearer ${targets.adminToken}`) },
    { weight: 2, arbitrary: fc.constant(`Bearer ${targets.userToken}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        'Bearer',
        'Bearer x.y.z',
        `Basic ${targets.adminToken}`,
        `Bearer ${targets.adminToken}x`,
        `bearer  ${targets.adminToken}`,
      ),
    },
  )
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant('application/json') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        'text/plain',
        'application/json; charset=utf-16',
        'multipart/form-data; boundary=x',
        'application/x-www-form-urlencoded',
        'application/vnd.api+json',
      ),
    },
  )

  return fc.oneof(
    ...routes.map(([methods, path, template]) =>
      fc
        .record({
          method: fc.oneof(
            { weight: 9, arbitrary: fc.constantFrom(...methods) },
            {
              weight: 1,
              arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
            },
          ),
          path,
          query,
          authorization,
          contentType,
          body: body(template),
        })
        .map(({ method, path: p, query: q, authorization: a, contentType: c, body: b }) => {
          const sendsBody =
            method !== 'GET' && method !== 'DELETE' && method !== 'OPTIONS' && b !== undefined
          const headers: Record<string, string> = {}
          if (a !== '') headers.authorization = a
          if (sendsBody && c !== '') headers['content-type'] = c
          return { method, path: `${p}${q}`, headers, body: sendsBody ? b : undefined }
        }),
    ),
  )
}
