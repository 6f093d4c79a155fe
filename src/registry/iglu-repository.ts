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
import { readSchemaTexts, withSchemaParsedOnRead, type VersionSlot } from './schema-texts.js'

/** A schema of an Iglu repository, before its text is read: what a list of URIs needs. */
export interface PublishedKey {
  readonly key: SchemaKey
  readonly uri: string
  /** When this version was last written to the environment (a patch writes it again). */
  readonly deployedAt: Date
  /** Written through Iglu with isPublic=true: readable without a key. */
  readonly isPublic: boolean
  /** Where its text is kept. */
  readonly slot: VersionSlot
}

/** A schema as an Iglu repository serves it. */
export interface PublishedSchema extends PublishedKey {
  readonly schema: Record<string, unknown>
  /** The schema's text as it was sent: numbers exactly as written. */
  readonly text: string
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
  /** The schemas of the environment matching the filter, without their texts, in key order. */
  async function publishedKeys(
    organizationId: string,
    env: Env,
    filter: SchemaFilter,
  ): Promise<PublishedKey[]> {
    let query = db
      .selectFrom('schema_versions')
      .innerJoin('data_structures', 'data_structures.hash', 'schema_versions.data_structure_hash')
      .select([
        'data_structure_hash',
        'vendor',
        'name',
        'format',
        'version',
        'deployed_at',
        'is_public',
        'schema_bytes',
      ])
      .where('organization_id', '=', organizationId)
      .where('env', '=', env)
    if (filter.vendor !== undefined) query = query.where('vendor', '=', filter.vendor)
    if (filter.name !== undefined) query = query.where('name', '=', filter.name)
    if (filter.format !== undefined) query = query.where('format', '=', filter.format)
    if (filter.version !== undefined) query = query.where('version', '=', filter.version)
    const keys: PublishedKey[] = []
    for (const row of await query.execute()) {
      const version = parseSchemaVer(row.version)
      if (version === null || (filter.model !== undefined && version.model !== filter.model))
        continue
      if (filter.readable !== undefined && !filter.readable(row.vendor, row.is_public)) continue
      const key: SchemaKey = { vendor: row.vendor, name: row.name, format: row.format, version }
      keys.push({
        key,
        uri: schemaKeyToUri(key),
        deployedAt: row.deployed_at,
        isPublic: row.is_public,
        slot: {
          hash: row.data_structure_hash,
          env,
          version: row.version,
          bytes: row.schema_bytes,
        },
      })
    }
    return keys.sort(bySchemaKey)
  }

  /** The schemas of these keys with their texts, read a page at a time; one removed since is left out. */
  async function withTexts(keys: readonly PublishedKey[]): Promise<PublishedSchema[]> {
    const textOf = await readSchemaTexts(
      db,
      keys.map((key) => key.slot),
    )
    return keys.flatMap((key) => {
      const text = textOf(key.slot)
      return text === undefined ? [] : [withSchemaParsedOnRead({ ...key, text })]
    })
  }

  async function published(
    organizationId: string,
    env: Env,
    filter: SchemaFilter,
  ): Promise<PublishedSchema[]> {
    return withTexts(await publishedKeys(organizationId, env, filter))
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
      schemas: readonly PublishedKey[],
    ): Promise<Map<string, Date>> {
      const byHashVersion = new Map(
        schemas.map((schema) => [`${schema.slot.hash} ${schema.slot.version}`, schema]),
      )
      const times = new Map(schemas.map((schema) => [schema.uri, schema.deployedAt]))
      if (schemas.length === 0) return times
      const hashes = [...new Set(schemas.map((schema) => schema.slot.hash))]
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

    /** Like `list`, without the schemas' texts (a list of URIs, a count): no schema is read. */
    listKeys: publishedKeys,

    /** Like `listKeys`, but an empty answer is Iglu Server's 404 "No schemas available". */
    async listKeysOrFail(
      organizationId: string,
      env: Env,
      filter: SchemaFilter,
    ): Promise<PublishedKey[]> {
      const keys = await publishedKeys(organizationId, env, filter)
      if (keys.length === 0) throw new NoSchemasAvailableError()
      return keys
    },

    /** The schemas of keys listed by `listKeys`, with their texts. */
    withTexts,

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

function bySchemaKey(a: PublishedKey, b: PublishedKey): number {
  return (
    byText(a.key.vendor, b.key.vendor) ||
    byText(a.key.name, b.key.name) ||
    byText(a.key.format, b.key.format) ||
    compareSchemaVer(a.key.version, b.key.version)
  )
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
