import {
  dataStructureHash,
  type DesignSchemaChecker,
  formatSchemaVer,
  parseIgluUri,
  type SchemaKey,
} from '../iglu/index.js'
import { isUuid } from '../shared/index.js'
import { builtInEventSchema } from './built-in-events.js'
import { problemError, problemWarning, type Problem } from './scenario-problem.js'
import type { ScenarioInput } from './scenarios.schemas.js'

/** An entity's family: its vendor, name, format and model (`iglu:com.acme/product/jsonschema/1`). */
const entityFamily = (key: SchemaKey) =>
  `iglu:${key.vendor}/${key.name}/${key.format}/${key.version.model}`

/** One deployed version of a data structure. */
export interface SourceVersion {
  readonly version: string
  readonly schema: Record<string, unknown>
  readonly inProd: boolean
}

/** What the registry knows about one data structure (the registry's catalog has this shape). */
export interface SourceEntry {
  readonly hash: string
  readonly hidden: boolean
  readonly versions: readonly SourceVersion[]
}

export interface SourceCatalog {
  describe(
    organizationId: string,
    vendor: string,
    name: string,
    format: string,
  ): Promise<SourceEntry | null>
  /**
   * A schema known outside the organization's registry (Iglu Central, the bundled core schemas,
   * the configured repositories), for a data structure the registry does not have; null if none.
   */
  publicSchema?(key: SchemaKey): Promise<Record<string, unknown> | null>
}

/** The data products context, as far as scenarios need it. */
export interface DataProductDirectory {
  productExists(organizationId: string, id: string): Promise<boolean>
  missingSourceApplications(organizationId: string, ids: readonly string[]): Promise<string[]>
}

/** A source URI found in the registry: the version it names and the newest one. */
export interface ResolvedSource {
  readonly key: SchemaKey
  readonly entry: SourceEntry
  readonly current: SourceVersion
  readonly latest: SourceVersion
}

export type SourceResolution =
  | { readonly kind: 'found'; readonly source: ResolvedSource }
  | { readonly kind: 'not-a-uri' }
  | { readonly kind: 'not-deployed' }

/**
 * A data structure the organization's registry does not have, known elsewhere: one version, in
 * production (public schemas are deployed everywhere), never hidden.
 */
async function publicSource(
  catalog: SourceCatalog,
  organizationId: string,
  key: SchemaKey,
): Promise<SourceResolution> {
  const schema = builtInEventSchema(key) ?? (await catalog.publicSchema?.(key)) ?? null
  if (schema === null) return { kind: 'not-deployed' }
  const version: SourceVersion = { version: formatSchemaVer(key.version), schema, inProd: true }
  const hash = dataStructureHash(organizationId, key.vendor, key.name, key.format)
  const entry: SourceEntry = { hash, hidden: false, versions: [version] }
  return { kind: 'found', source: { key, entry, current: version, latest: version } }
}

/**
 * Source lookups for one request, each data structure fetched once: the organization's registry,
 * and for a data structure it does not have, the schemas known outside it. A structure the
 * registry has is the registry's alone (the user's own repository takes precedence), so a version
 * it lacks is not looked up elsewhere.
 */
export function sourceResolver(catalog: SourceCatalog, organizationId: string) {
  const entries = new Map<string, Promise<SourceEntry | null>>()
  return async (uri: string): Promise<SourceResolution> => {
    const key = parseIgluUri(uri)
    if (key === null) return { kind: 'not-a-uri' }
    const id = `${key.vendor}/${key.name}/${key.format}`
    let entry = entries.get(id)
    if (entry === undefined) {
      entry = catalog.describe(organizationId, key.vendor, key.name, key.format)
      entries.set(id, entry)
    }
    const found = await entry
    if (found === null) return publicSource(catalog, organizationId, key)
    const version = formatSchemaVer(key.version)
    const current = found.versions.find((v) => v.version === version)
    const latest = found.versions.at(-1)
    if (current === undefined || latest === undefined) return { kind: 'not-deployed' }
    return { kind: 'found', source: { key, entry: found, current, latest } }
  }
}

export type SourceResolver = ReturnType<typeof sourceResolver>

/** Why a source cannot be used, for a title. */
export function unresolvedTitle(field: string, uri: string, resolution: SourceResolution): string {
  const shown = JSON.stringify(uri.slice(0, 300))
  return resolution.kind === 'not-a-uri'
    ? `${field} ${shown} is not an Iglu URI (iglu:vendor/name/format/model-revision-addition)`
    : `${field} ${shown} is not a schema deployed in this organization, nor one known outside it (Iglu Central, the configured Iglu repositories)`
}

/**
 * A JSON Schema that the shared validator can compile, and not absurdly deep: else an Error. One
 * that is valid but that Floe will not run (a pattern RE2 cannot run, too large or too costly to
 * check) is the spec's SchemaUndecidable, a Warning: it is kept, and the caller must ensure it.
 */
async function schemaProblems(
  check: DesignSchemaChecker,
  schema: object,
  field: string,
): Promise<Problem[]> {
  const problem = await check(schema, field)
  if (problem === null) return []
  if (problem.kind === 'invalid') return [problemError('InvalidSchema', field, problem.message)]
  return [
    problemWarning(
      'SchemaUndecidable',
      field,
      `${problem.message}; its compatibility cannot be decided and events are not checked against it: the caller must ensure it`,
    ),
  ]
}

/**
 * Every check of a scenario definition that needs the registry or the data products: the source,
 * the schemas, the entities, the data product and the source applications. Returns the problems
 * and the resolved source, if any.
 */
export async function definitionProblems(
  deps: {
    readonly dataProducts: DataProductDirectory
    readonly resolve: SourceResolver
    readonly designSchema: DesignSchemaChecker
  },
  organizationId: string,
  input: ScenarioInput,
): Promise<{ problems: Problem[]; source: ResolvedSource | null }> {
  const problems: Problem[] = []
  let source: ResolvedSource | null = null
  if (input.event?.source !== undefined) {
    const resolution = await deps.resolve(input.event.source)
    if (resolution.kind === 'found') source = resolution.source
    else
      problems.push(
        problemError(
          'SourceNotFound',
          'event.source',
          unresolvedTitle('event.source', input.event.source, resolution),
        ),
      )
  }
  if (input.event?.schema !== undefined)
    problems.push(...(await schemaProblems(deps.designSchema, input.event.schema, 'event.schema')))

  const seen = new Map<string, string>()
  for (const list of ['tracked', 'enriched'] as const) {
    for (const [index, entity] of (input.entities?.[list] ?? []).entries()) {
      const field = `entities.${list}[${index}]`
      const resolution = await deps.resolve(entity.source)
      if (resolution.kind !== 'found')
        problems.push(
          problemError(
            'EntityNotFound',
            `${field}.source`,
            unresolvedTitle(`${field}.source`, entity.source, resolution),
          ),
        )
      // Inspection counts an entity's cardinality over its family (same vendor, name and model):
      // two versions of one model would each count the other's entities, a design no event meets.
      const identity =
        resolution.kind === 'found' ? entityFamily(resolution.source.key) : entity.source
      const first = seen.get(identity)
      if (first === undefined) seen.set(identity, field)
      else
        problems.push(
          problemError(
            'DuplicateEntity',
            `${field}.source`,
            `${field}.source ${JSON.stringify(entity.source.slice(0, 300))} is already listed at ${first}${resolution.kind === 'found' ? ` (entities of one vendor, name and model are counted together, whatever their version: list one)` : ''}`,
          ),
        )
      if (
        entity.minCardinality !== undefined &&
        entity.maxCardinality !== undefined &&
        entity.maxCardinality < entity.minCardinality
      ) {
        problems.push(
          problemError(
            'InvalidCardinality',
            `${field}.maxCardinality`,
            `${field}.maxCardinality (${entity.maxCardinality}) is below minCardinality (${entity.minCardinality})`,
          ),
        )
      }
      if (entity.schema !== undefined)
        problems.push(
          ...(await schemaProblems(deps.designSchema, entity.schema, `${field}.schema`)),
        )
    }
  }

  if (
    input.dataProductId !== undefined &&
    !(
      isUuid(input.dataProductId) &&
      (await deps.dataProducts.productExists(organizationId, input.dataProductId))
    )
  ) {
    problems.push(
      problemError(
        'DataProductNotFound',
        'dataProductId',
        `dataProductId ${JSON.stringify(input.dataProductId)} is not a data product of this organization`,
      ),
    )
  }
  const applications = input.sourceApplications ?? []
  const wellFormed = applications.filter(isUuid)
  const missing = new Set([
    ...applications.filter((a) => !isUuid(a)),
    ...(await deps.dataProducts.missingSourceApplications(organizationId, wellFormed)),
  ])
  for (const [index, application] of applications.entries()) {
    if (missing.has(application))
      problems.push(
        problemError(
          'SourceApplicationNotFound',
          `sourceApplications[${index}]`,
          `sourceApplications[${index}] ${JSON.stringify(application)} is not a source application of this organization`,
        ),
      )
  }
  return { problems, source }
}

/**
 * A published scenario's sources that are deployed to DEV only: a published specification is for
 * production, so every endpoint that publishes one refuses it (the rule snowplow-cli's publish
 * meets: "not deployed to production").
 */
export async function devOnlyProblems(
  resolve: SourceResolver,
  input: ScenarioInput,
): Promise<Problem[]> {
  const sources: [string, string | undefined][] = [['event.source', input.event?.source]]
  for (const list of ['tracked', 'enriched'] as const)
    for (const [index, entity] of (input.entities?.[list] ?? []).entries())
      sources.push([`entities.${list}[${index}].source`, entity.source])
  const problems: Problem[] = []
  for (const [field, uri] of sources) {
    if (uri === undefined) continue
    const resolution = await resolve(uri)
    if (resolution.kind === 'found' && !resolution.source.current.inProd)
      problems.push(
        problemError(
          'SchemaNotInProduction',
          field,
          `${field} ${JSON.stringify(uri.slice(0, 300))} is not deployed to production (DEV only): deploy it to PROD before publishing`,
        ),
      )
  }
  return problems
}
