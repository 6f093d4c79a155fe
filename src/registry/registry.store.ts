import { sql, type Kysely } from 'kysely'
import type {
  RegistryTables,
  DataStructureRow,
  DeploymentRow,
  PendingWork,
  StructureMeta,
} from './registry.table.js'
import type {
  DataStructure,
  Deployment,
  Env,
  SchemaVersion,
  ValidatedCandidate,
} from './registry-records.js'

import { createVersionReads, type StoredVersionSlot } from './version-reads.js'

export type { DataStructure, Deployment, Env, SchemaVersion, StoredVersionSlot, ValidatedCandidate }

type Identity = {
  organizationId: string
  vendor: string
  name: string
  format: string
  version: string
}

/** Rows of the registry tables, mapped to domain values. Bind it to a transaction to make several calls atomic. */
export function createRegistryStore(db: Kysely<RegistryTables>) {
  const { versionsOf, versionSlotsOf, withSchemas } = createVersionReads(db)

  return {
    versionsOf,
    versionSlotsOf,
    withSchemas,

    /** Serialises every change to one data structure until the transaction ends. */
    async lockStructure(hash: string): Promise<void> {
      await sql`select pg_advisory_xact_lock(hashtextextended(${hash}, 0))`.execute(db)
    },

    async saveValidated(identity: Identity, candidate: ValidatedCandidate): Promise<void> {
      const values = {
        organization_id: identity.organizationId,
        vendor: identity.vendor,
        name: identity.name,
        format: identity.format,
        version: identity.version,
        // The text as sent: a json column keeps it byte for byte.
        schema: candidate.text,
        meta: JSON.stringify(candidate.meta),
        content_hash: candidate.contentHash,
      }
      await db
        .insertInto('validated_schemas')
        .values(values)
        .onConflict((oc) =>
          oc.columns(['organization_id', 'vendor', 'name', 'format', 'version']).doUpdateSet({
            schema: values.schema,
            meta: values.meta,
            content_hash: values.content_hash,
            validated_at: sql`now()`,
          }),
        )
        .execute()
    },

    /** Empties the VALIDATED slot of one version: what failed validation must not stay deployable. */
    async deleteValidated(identity: Identity): Promise<void> {
      await db
        .deleteFrom('validated_schemas')
        .where('organization_id', '=', identity.organizationId)
        .where('vendor', '=', identity.vendor)
        .where('name', '=', identity.name)
        .where('format', '=', identity.format)
        .where('version', '=', identity.version)
        .execute()
    },

    async findValidated(identity: Identity): Promise<ValidatedCandidate | null> {
      const row = await db
        .selectFrom('validated_schemas')
        .select(['schema', 'meta', 'content_hash', sql<string>`schema::text`.as('schema_text')])
        .where('organization_id', '=', identity.organizationId)
        .where('vendor', '=', identity.vendor)
        .where('name', '=', identity.name)
        .where('format', '=', identity.format)
        .where('version', '=', identity.version)
        .executeTakeFirst()
      return row
        ? {
            schema: row.schema,
            text: row.schema_text,
            meta: row.meta,
            contentHash: row.content_hash,
          }
        : null
    },

    async findStructure(organizationId: string, hash: string): Promise<DataStructure | null> {
      const row = await db
        .selectFrom('data_structures')
        .selectAll()
        .where('hash', '=', hash)
        .where('organization_id', '=', organizationId)
        .executeTakeFirst()
      return row ? toStructure(row) : null
    },

    async listStructures(
      organizationId: string,
      filter: {
        vendor?: string | undefined
        name?: string | undefined
        format?: string | undefined
      },
    ): Promise<DataStructure[]> {
      let query = db
        .selectFrom('data_structures')
        .selectAll()
        .where('organization_id', '=', organizationId)
      if (filter.vendor !== undefined) query = query.where('vendor', '=', filter.vendor)
      if (filter.name !== undefined) query = query.where('name', '=', filter.name)
      if (filter.format !== undefined) query = query.where('format', '=', filter.format)
      // In code point order whatever the database's collation (an ICU one put `a_b` before
      // `a-b` and `ab` before `Ab`): the same order on PGlite, on any server, and in the Iglu lists.
      const rows = await query
        .orderBy(sql`vendor collate "C"`)
        .orderBy(sql`name collate "C"`)
        .orderBy(sql`format collate "C"`)
        .execute()
      return rows.map(toStructure)
    },

    async insertStructure(structure: DataStructure): Promise<void> {
      await db
        .insertInto('data_structures')
        .values({
          ...pick(structure),
          organization_id: structure.organizationId,
          meta: JSON.stringify(structure.meta),
        })
        .execute()
    },

    async updateDescription(hash: string, description: string | null): Promise<void> {
      await db
        .updateTable('data_structures')
        .set({ description })
        .where('hash', '=', hash)
        .execute()
    },

    async updateMeta(hash: string, meta: StructureMeta): Promise<void> {
      await db
        .updateTable('data_structures')
        .set({ meta: JSON.stringify(meta) })
        .where('hash', '=', hash)
        .execute()
    },

    async versions(hash: string, env?: Env): Promise<SchemaVersion[]> {
      return (await versionsOf([hash], env)).get(hash) ?? []
    },

    async putVersion(hash: string, version: SchemaVersion, at: Date): Promise<void> {
      const values = {
        data_structure_hash: hash,
        env: version.env,
        version: version.version,
        schema: version.text,
        content_hash: version.contentHash,
        patch_level: version.patchLevel,
        deployed_at: at,
      }
      await db
        .insertInto('schema_versions')
        .values(values)
        .onConflict((oc) =>
          oc.columns(['data_structure_hash', 'env', 'version']).doUpdateSet({
            schema: values.schema,
            content_hash: values.content_hash,
            patch_level: values.patch_level,
            deployed_at: values.deployed_at,
          }),
        )
        .execute()
    },

    async appendDeployment(hash: string, deployment: Deployment): Promise<void> {
      await db
        .insertInto('deployments')
        .values({
          data_structure_hash: hash,
          version: deployment.version,
          env: deployment.env,
          patch_level: deployment.patchLevel,
          content_hash: deployment.contentHash,
          message: deployment.message,
          initiator: deployment.initiator,
          initiator_name: deployment.initiatorName,
          ts: deployment.ts,
        })
        .execute()
    },

    /** Newest first, with optional filters and offset paging. */
    async deployments(
      hash: string,
      query: { from: number; size: number; env?: Env | undefined; version?: string | undefined },
    ): Promise<Deployment[]> {
      let select = db.selectFrom('deployments').selectAll().where('data_structure_hash', '=', hash)
      if (query.env !== undefined) select = select.where('env', '=', query.env)
      if (query.version !== undefined) select = select.where('version', '=', query.version)
      const rows = await select.orderBy('id', 'desc').offset(query.from).limit(query.size).execute()
      return rows.map(toDeployment)
    },

    /** Per environment, the deployment of the highest version there (its latest, if patched), for each structure. */
    async currentDeployments(hashes: readonly string[]): Promise<Map<string, Deployment[]>> {
      const byHash = new Map<string, Deployment[]>()
      if (hashes.length === 0) return byHash
      const rows = await db
        .selectFrom('deployments')
        .selectAll()
        .distinctOn(['data_structure_hash', 'env'])
        .where('data_structure_hash', 'in', hashes)
        .orderBy('data_structure_hash')
        .orderBy('env', 'desc')
        // The highest version deployed there (SchemaVer order), its latest deployment (a patch).
        .orderBy(sql`split_part(version, '-', 1)::int`, 'desc')
        .orderBy(sql`split_part(version, '-', 2)::int`, 'desc')
        .orderBy(sql`split_part(version, '-', 3)::int`, 'desc')
        .orderBy('id', 'desc')
        .execute()
      for (const row of rows)
        byHash.set(row.data_structure_hash, [
          ...(byHash.get(row.data_structure_hash) ?? []),
          toDeployment(row),
        ])
      return byHash
    },

    async saveRequest(request: {
      id: string
      organizationId: string
      kind: 'validation' | 'deployment'
      result: object
    }): Promise<void> {
      await db
        .insertInto('registry_requests')
        .values({
          id: request.id,
          organization_id: request.organizationId,
          kind: request.kind,
          result: JSON.stringify(request.result),
        })
        .onConflict((oc) => oc.column('id').doUpdateSet({ result: JSON.stringify(request.result) }))
        .execute()
    },

    /** An asynchronous request, answered before its work is done: the work is kept with it until it is finished. */
    async acceptRequest(request: {
      id: string
      organizationId: string
      kind: PendingWork['kind']
      result: object
      work: PendingWork
    }): Promise<void> {
      await db
        .insertInto('registry_requests')
        .values({
          id: request.id,
          organization_id: request.organizationId,
          kind: request.kind,
          result: JSON.stringify(request.result),
          pending_work: JSON.stringify(request.work),
        })
        .execute()
    },

    /** The final result of an accepted request; false when another run already finished it (the first result stays). */
    async finishRequest(id: string, result: object): Promise<boolean> {
      const updated = await db
        .updateTable('registry_requests')
        .set({ result: JSON.stringify(result), pending_work: null })
        .where('id', '=', id)
        .where('pending_work', 'is not', null)
        .executeTakeFirst()
      return updated.numUpdatedRows > 0n
    },

    /** Accepted requests whose work is not finished, oldest first; those accepted long enough ago. */
    async unfinishedRequests({ olderThanSeconds = 0 } = {}): Promise<
      { id: string; organizationId: string; work: PendingWork }[]
    > {
      const rows = await db
        .selectFrom('registry_requests')
        .select(['id', 'organization_id', 'pending_work'])
        .where('pending_work', 'is not', null)
        .where('created_at', '<=', sql<Date>`now() - make_interval(secs => ${olderThanSeconds})`)
        .orderBy('created_at')
        .execute()
      return rows.flatMap((row) =>
        row.pending_work === null
          ? []
          : [{ id: row.id, organizationId: row.organization_id, work: row.pending_work }],
      )
    },

    /**
     * Deletes up to `limit` of the requests finished and accepted at least `olderThanSeconds` ago
     * (by the database's clock), the oldest first; how many it deleted.
     */
    async deleteFinishedRequests(olderThanSeconds: number, limit: number): Promise<number> {
      const deleted = await db
        .deleteFrom('registry_requests')
        .where(
          'id',
          'in',
          db
            .selectFrom('registry_requests')
            .select('id')
            .where('pending_work', 'is', null)
            .where('created_at', '<', sql<Date>`now() - make_interval(secs => ${olderThanSeconds})`)
            .orderBy('created_at')
            .limit(limit),
        )
        .executeTakeFirst()
      return Number(deleted.numDeletedRows)
    },

    async findRequest(
      organizationId: string,
      kind: 'validation' | 'deployment',
      id: string,
    ): Promise<Record<string, unknown> | null> {
      const row = await db
        .selectFrom('registry_requests')
        .select('result')
        .where('id', '=', id)
        .where('organization_id', '=', organizationId)
        .where('kind', '=', kind)
        .executeTakeFirst()
      return row?.result ?? null
    },
  }
}

export type RegistryStore = ReturnType<typeof createRegistryStore>

function pick(structure: DataStructure) {
  const { hash, vendor, name, format, description } = structure
  return { hash, vendor, name, format, description }
}

function toStructure(row: DataStructureRow): DataStructure {
  return {
    hash: row.hash,
    organizationId: row.organization_id,
    vendor: row.vendor,
    name: row.name,
    format: row.format,
    description: row.description,
    meta: row.meta,
  }
}

function toDeployment(row: DeploymentRow): Deployment {
  return {
    version: row.version,
    patchLevel: row.patch_level,
    contentHash: row.content_hash,
    env: row.env,
    ts: row.ts,
    message: row.message,
    initiator: row.initiator,
    initiatorName: row.initiator_name,
  }
}
