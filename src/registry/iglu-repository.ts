import { sql, type Kysely } from 'kysely'
import type { RegistryTables } from './registry.table.js'
import {
  dataStructureHash,
  compareSchemaVer,
  formatSchemaVer,
  parseSchemaVer,
  schemaKeyToUri,
  type SchemaKey,
} from '../iglu/index.js'
import { NoSchemasAvailableError, SchemaNotFoundError } from './registry.errors.js'
import type { Env } from './registry.store.js'

/** A schema as an Iglu repository serves it. */
export interface PublishedSchema {
  readonly key: SchemaKey
  readonly uri: string
  readonly schema: Record<string, unknown>
  /** The schema's text as it was sent: numbers exactly as written. */
  readonly text: string
  /** When this version was last written to the environment (a patch writes it again). */
  readonly deployedAt: Date
  /** Written through Iglu with isPublic=true: readable without a key. */
  readonly isPublic: boolean
}

export interface SchemaFilter {
  readonly vendor?: string | undefined
  readonly name?: string | undefined
  readonly format?: string | undefined
  readonly model?: number | undefined
  readonly version?: string | undefined
  /** Only the schemas this says the reader may read (absent: every schema, for the server's own reads). */
  readonly readable?: ((vendor: string, isPublic: boolean) => boolean) | undefined
}

/**
 * One organization's deployed schemas seen as Iglu repositories, one per environment. This is what
 * `/iglu/{organizationId}/{dev|prod}/api/schemas` serves and what the inspection resolver reads in-process.
 */
export function createIgluRepository(db: Kysely<RegistryTables>) {
  async function published(
    organizationId: string,
    env: Env,
    filter: SchemaFilter,
  ): Promise<PublishedSchema[]> {
    let query = db
      .selectFrom('schema_versions')
      .innerJoin('data_structures', 'data_structures.hash', 'schema_versions.data_structure_hash')
      .select([
        'vendor',
        'name',
        'format',
        'version',
        'schema',
        'deployed_at',
        'is_public',
        sql<string>`schema::text`.as('schema_text'),
      ])
      .where('organization_id', '=', organizationId)
      .where('env', '=', env)
    if (filter.vendor !== undefined) query = query.where('vendor', '=', filter.vendor)
    if (filter.name !== undefined) query = query.where('name', '=', filter.name)
    if (filter.format !== undefined) query = query.where('format', '=', filter.format)
    if (filter.version !== undefined) query = query.where('version', '=', filter.version)
    const rows = await query.execute()
    const schemas: PublishedSchema[] = []
    for (const row of rows) {
      const version = parseSchemaVer(row.version)
      if (version === null || (filter.model !== undefined && version.model !== filter.model))
        continue
      if (filter.readable !== undefined && !filter.readable(row.vendor, row.is_public)) continue
      const key: SchemaKey = { vendor: row.vendor, name: row.name, format: row.format, version }
      schemas.push({
        key,
        uri: schemaKeyToUri(key),
        schema: row.schema,
        text: row.schema_text,
        deployedAt: row.deployed_at,
        isPublic: row.is_public,
      })
    }
    return schemas.sort(bySchemaKey)
  }

  async function findOne(
    organizationId: string,
    env: Env,
    key: SchemaKey,
    readable: SchemaFilter['readable'],
  ): Promise<PublishedSchema | null> {
    const [found] = await published(organizationId, env, {
      vendor: key.vendor,
      name: key.name,
      format: key.format,
      version: formatSchemaVer(key.version),
      readable,
    })
    return found ?? null
  }

  return {
    /**
     * When each schema was first deployed to the environment, by URI (a patch keeps its creation):
     * one query, made only for Iglu Server's `meta` representation. A schema without a recorded
     * deployment has its last write's time.
     */
    async creationTimes(
      organizationId: string,
      env: Env,
      schemas: readonly PublishedSchema[],
    ): Promise<Map<string, Date>> {
      const byHashVersion = new Map<string, PublishedSchema>()
      for (const schema of schemas) {
        const { vendor, name, format, version } = schema.key
        const hash = dataStructureHash(organizationId, vendor, name, format)
        byHashVersion.set(`${hash} ${formatSchemaVer(version)}`, schema)
      }
      const times = new Map(schemas.map((schema) => [schema.uri, schema.deployedAt]))
      if (schemas.length === 0) return times
      const hashes = [...new Set([...byHashVersion.keys()].map((key) => key.split(' ')[0] ?? ''))]
      const rows = await db
        .selectFrom('deployments')
        .select(['data_structure_hash', 'version', (eb) => eb.fn.min('ts').as('first')])
        .where('env', '=', env)
        .where('data_structure_hash', 'in', hashes)
        .groupBy(['data_structure_hash', 'version'])
        .execute()
      for (const row of rows) {
        const schema = byHashVersion.get(`${row.data_structure_hash} ${row.version}`)
        if (schema !== undefined) times.set(schema.uri, new Date(row.first))
      }
      return times
    },

    /** Asks the database for nothing: it fails when the database does not answer. */
    async ping(): Promise<void> {
      await sql`select 1`.execute(db)
    },

    /** Every schema of the environment matching the filter, ordered by vendor, name, format, then SchemaVer. */
    list: published,

    /** Like `list`, but an empty answer is Iglu Server's 404 "No schemas available". */
    async listOrFail(
      organizationId: string,
      env: Env,
      filter: SchemaFilter,
    ): Promise<PublishedSchema[]> {
      const schemas = await published(organizationId, env, filter)
      if (schemas.length === 0) throw new NoSchemasAvailableError()
      return schemas
    },

    find: (organizationId: string, env: Env, key: SchemaKey, readable?: SchemaFilter['readable']) =>
      findOne(organizationId, env, key, readable),

    /** Like `find`, but a missing (or unreadable) schema is Iglu Server's 404 "The schema is not found". */
    async get(
      organizationId: string,
      env: Env,
      key: SchemaKey,
      readable?: SchemaFilter['readable'],
    ): Promise<PublishedSchema> {
      const found = await findOne(organizationId, env, key, readable)
      if (found === null) throw new SchemaNotFoundError()
      return found
    },

    /** Marks one version of an environment public (readable without a key) or not. */
    async setPublic(organizationId: string, env: Env, key: SchemaKey, isPublic: boolean) {
      const hash = dataStructureHash(organizationId, key.vendor, key.name, key.format)
      await db
        .updateTable('schema_versions')
        .set({ is_public: isPublic })
        .where('data_structure_hash', '=', hash)
        .where('env', '=', env)
        .where('version', '=', formatSchemaVer(key.version))
        .execute()
    },
  }
}

export type IgluRepository = ReturnType<typeof createIgluRepository>

function bySchemaKey(a: PublishedSchema, b: PublishedSchema): number {
  return (
    byText(a.key.vendor, b.key.vendor) ||
    byText(a.key.name, b.key.name) ||
    byText(a.key.format, b.key.format) ||
    compareSchemaVer(a.key.version, b.key.version)
  )
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
