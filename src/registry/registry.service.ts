import { randomUUID } from 'node:crypto'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { refuseInvalidTarget, schemaMigration, type SchemaMigration } from './schema-migrations.js'
import { misversionedWarning, versionChange } from './version-change.js'
import { deployWithChange } from './checked-deployment.js'
import { isUuid } from '../shared/index.js'
import type { StructureMeta } from './registry.table.js'
import { createAcceptedRequests } from './accepted-requests.js'
import {
  type MetaInput,
  type MigrationInput,
  type RegistryServiceDeps,
  type RequestResult,
  type ValidationBody,
} from './registry-requests.js'
import {
  formatSchemaVer,
  parseSchemaVer,
  SCHEMA_VER_RULE,
  dataStructureHash,
  schemaKeyToUri,
} from '../iglu/index.js'
import {
  checkDeploymentRequest,
  refuseHashConflict,
  type DeploymentRequest,
  type Initiator,
} from './deploy-schema.js'
import {
  DataStructureHashConflictError,
  DataStructureNotFoundError,
  InvalidSchemaKeyError,
  RequestNotFoundError,
  VersionNotDeployedError,
} from './registry.errors.js'
import { createDeployedSchemaCache } from './deployed-schema-cache.js'
import { createRegistryStore, type DataStructure, type Env } from './registry.store.js'
import { dataStructureView, deploymentView, versionsInOrder } from './registry-views.js'
import { reportOf } from './schema-validation.js'

export type { MetaInput, MigrationInput, RequestResult, ValidationBody }

/** Finished requests deleted in one statement when old results are forgotten. */
const FORGET_BATCH = 500

const DEFAULT_META: StructureMeta = { hidden: false, schemaType: null, customData: {} }
const orNull = (list: readonly string[]) => (list.length === 0 ? null : [...list])

/**
 * The data structures registry: validation, deployment, reads and metadata of one organization at a
 * time. `versionCacheTtlMs`: how long a version read is kept (deployments here clear it; 0: not
 * kept). `onDeployed`: told after each deployment that changed something.
 */
export function createRegistryService(deps: RegistryServiceDeps) {
  const store = createRegistryStore(deps.db)
  type VersionRead = { organizationId: string; hash: string; version: string; env: Env | undefined }
  // Versions found are kept; a structure or version not (yet) there throws, and is asked again next time.
  /** A version's schema, and its text as sent (numbers as written). */
  type VersionFound = { readonly schema: Record<string, unknown>; readonly text: string }
  const versionReads = createDeployedSchemaCache<VersionRead, VersionFound>({
    keyOf: (read) => `${read.organizationId}/${read.hash}/${read.version}/${read.env ?? ''}`,
    find: readVersion,
    keepMisses: false,
    ttlMs: deps.versionCacheTtlMs ?? 0,
    now: () => performance.now(),
  })

  async function readVersion(read: VersionRead): Promise<VersionFound> {
    const { organizationId, hash, version, env } = read
    await structureOrThrow(organizationId, hash)
    schemaVerOrThrow(version)
    const found = (await store.versions(hash, env)).filter((v) => v.version === version)
    const chosen = found.find((v) => v.env === 'PROD') ?? found[0]
    if (chosen === undefined) throw new VersionNotDeployedError(version, env)
    return { schema: chosen.schema, text: chosen.text }
  }

  function schemaVerOrThrow(version: string): void {
    if (parseSchemaVer(version) === null)
      throw new InvalidSchemaKeyError([
        `version "${version.slice(0, 100)}" must be ${SCHEMA_VER_RULE}`,
      ])
  }

  async function structureOrThrow(organizationId: string, hash: string): Promise<DataStructure> {
    const structure = await store.findStructure(organizationId, hash)
    if (structure === null) throw new DataStructureNotFoundError(hash)
    return structure
  }

  /**
   * Validates, then records the result with the candidate: a new request, or the final result of an
   * accepted one. A success fills the version's VALIDATED slot and names the content (`contentHash`)
   * that a deployment may then insist on; a failure empties the slot, so that older content is not
   * left deployable under a request that was refused. A dry run (`dryRun`) answers the same and
   * keeps nothing: a check, as an assistant asks for it, leaves a person's candidate as it was.
   */
  async function validate(
    organizationId: string,
    id: string,
    body: ValidationBody,
    { isAccepted = false, dryRun = false } = {},
  ): Promise<RequestResult> {
    const check = await deps.checkDocument(body.data, body.bodyText)
    const report = reportOf(check)
    const key = report.key
    const errors = [...report.errors]
    const hash =
      key === null ? null : dataStructureHash(organizationId, key.vendor, key.name, key.format)
    if (key !== null && hash !== null) {
      try {
        await refuseHashConflict(store, organizationId, hash, key)
      } catch (error) {
        if (!(error instanceof DataStructureHashConflictError)) throw error
        errors.push(`/self: ${error.message} [registry]`)
      }
    }
    const success = errors.length === 0 && key !== null
    const uri = key === null ? 'the schema' : schemaKeyToUri(key)
    const schema = body.data as Record<string, unknown>
    // The schema's text as sent (numbers as written), and its hash, from the check.
    const text = check.kind === 'report' ? check.text : JSON.stringify(schema)
    const validatedContent = success && check.kind === 'report' ? check.contentHash : null
    // What this version changes from the one before it, by the compatibility engine.
    const change =
      success && key !== null && hash !== null
        ? await versionChange(
            formatSchemaVer(key.version),
            schema,
            await store.versions(hash),
            deps.compatibility,
          )
        : null
    const warnings =
      change?.misversioned === true
        ? [...report.warnings, misversionedWarning(formatSchemaVer(key!.version), change)]
        : report.warnings
    const result: RequestResult = {
      id,
      completed: true,
      success,
      errors: orNull(errors),
      warnings: orNull(warnings),
      info: orNull(report.info),
      message: success ? `${uri} is valid` : `${uri} is invalid: ${errors.length} error(s)`,
      ...(validatedContent === null ? {} : { contentHash: validatedContent }),
      ...(change === null ? {} : { versionChange: change }),
      ...(success && hash !== null && deps.scenarioReferences !== undefined
        ? { scenarios: await deps.scenarioReferences(organizationId, hash, schema) }
        : {}),
    }
    if (dryRun) return result
    await deps.db.transaction().execute(async (trx) => {
      const tx = createRegistryStore(trx)
      if (key !== null) {
        const identity = { organizationId, ...key, version: formatSchemaVer(key.version) }
        if (validatedContent !== null)
          await tx.saveValidated(identity, {
            schema,
            text,
            meta: { ...DEFAULT_META, ...body.meta },
            contentHash: validatedContent,
          })
        else await tx.deleteValidated(identity)
      }
      if (isAccepted) await tx.finishRequest(id, result)
      else await tx.saveRequest({ id, organizationId, kind: 'validation', result })
    })
    return result
  }

  async function deploy(
    organizationId: string,
    id: string,
    request: DeploymentRequest,
    options: { patch: boolean; initiator: Initiator },
    { isAccepted = false } = {},
  ) {
    const { outcome, change } = await deployWithChange(
      { db: deps.db, store, compatibility: deps.compatibility, now: () => deps.clock.now() },
      organizationId,
      request,
      options,
    )
    const understated = change !== null && change.misversioned
    if (outcome.kind === 'deployed') {
      versionReads.invalidate()
      deps.onDeployed?.()
    }
    const { uri } = outcome
    const result: RequestResult = {
      id,
      completed: true,
      success: true,
      errors: null,
      warnings: understated ? [misversionedWarning(request.version, change)] : null,
      info: null,
      message:
        outcome.kind === 'deployed'
          ? `${uri} deployed to ${outcome.deployment.env}${outcome.deployment.patchLevel > 0 ? ` (patch ${outcome.deployment.patchLevel})` : ''}`
          : `${uri} is already deployed to ${outcome.env} with this content; nothing changed`,
      dataStructureHash: outcome.hash,
      contentHash:
        outcome.kind === 'deployed' ? outcome.deployment.contentHash : outcome.contentHash,
      deployment: outcome.kind === 'deployed' ? deploymentView(outcome.deployment) : null,
      ...(change === null ? {} : { versionChange: change }),
    }
    if (isAccepted) await store.finishRequest(id, result)
    else await store.saveRequest({ id, organizationId, kind: 'deployment', result })
    return result
  }

  const accepted = createAcceptedRequests({
    store,
    background: deps.background,
    finish: (organizationId, id, work) =>
      work.kind === 'validation'
        ? validate(organizationId, id, work.body, { isAccepted: true })
        : deploy(
            organizationId,
            id,
            work.request,
            { patch: work.patch, initiator: work.initiator },
            { isAccepted: true },
          ),
  })

  return {
    validate: (organizationId: string, body: ValidationBody, options: { dryRun?: boolean } = {}) =>
      validate(organizationId, randomUUID(), body, options),
    validateLater: (organizationId: string, body: ValidationBody) =>
      accepted.accept(organizationId, { kind: 'validation', body }),
    deploy: (
      organizationId: string,
      request: DeploymentRequest,
      options: { patch: boolean; initiator: Initiator },
    ) => deploy(organizationId, randomUUID(), request, options),
    async deployLater(
      organizationId: string,
      request: DeploymentRequest,
      options: { patch: boolean; initiator: Initiator },
    ) {
      checkDeploymentRequest(request, options.initiator)
      const { initiator } = options // kept with the work: its callers give only its own fields
      return accepted.accept(organizationId, {
        kind: 'deployment',
        request,
        patch: options.patch,
        initiator,
      })
    },

    /** Finishes the requests accepted before a server stopped: run once at start-up. */
    finishInterruptedRequests: () => accepted.finishInterrupted(),
    /**
     * Forgets the results of requests finished and accepted `olderThanSeconds` ago or more, a few
     * hundred at a time with a turn of the event loop between (the embedded store runs on it).
     */
    async forgetFinishedRequests(olderThanSeconds: number): Promise<number> {
      let forgotten = 0
      for (;;) {
        const deleted = await store.deleteFinishedRequests(olderThanSeconds, FORGET_BATCH)
        forgotten += deleted
        if (deleted < FORGET_BATCH) return forgotten
        await nextTurn()
      }
    },
    /** Finishes the requests another instance accepted `olderThanSeconds` ago or more and left. */
    finishAbandonedRequests: (olderThanSeconds: number) =>
      accepted.finishAbandoned(olderThanSeconds),

    async findRequest(organizationId: string, kind: 'validation' | 'deployment', id: string) {
      const result = isUuid(id)
        ? await store.findRequest(organizationId, kind, id.toLowerCase())
        : null
      if (result === null) throw new RequestNotFoundError(id)
      return result
    },

    /** Ordered by vendor, name and format; `from` and `size` page that order. */
    async list(
      organizationId: string,
      filter: {
        vendor?: string | undefined
        name?: string | undefined
        format?: string | undefined
        from?: number
        size?: number
      },
    ) {
      const structures = (await store.listStructures(organizationId, filter)).slice(
        filter.from ?? 0,
        (filter.from ?? 0) + (filter.size ?? Infinity),
      )
      const current = await store.currentDeployments(structures.map((s) => s.hash))
      return structures.map((s) => dataStructureView(s, current.get(s.hash) ?? []))
    },

    async get(organizationId: string, hash: string) {
      const structure = await structureOrThrow(organizationId, hash)
      const current = await store.currentDeployments([hash])
      return dataStructureView(structure, current.get(hash) ?? [])
    },

    /** The raw schema of a version in an environment (PROD, else DEV, when none is named), and its text. */
    getVersion: async (
      organizationId: string,
      hash: string,
      version: string,
      env: Env | undefined,
    ): Promise<VersionFound> =>
      (await versionReads.lookup({ organizationId, hash, version, env })) as VersionFound,

    async deployments(
      organizationId: string,
      hash: string,
      query: { from: number; size: number; env?: Env | undefined; version?: string | undefined },
    ) {
      await structureOrThrow(organizationId, hash)
      if (query.version !== undefined) schemaVerOrThrow(query.version)
      return (await store.deployments(hash, query)).map(deploymentView)
    },

    /**
     * Raw schemas of every data structure: each one's highest version, or with `latestOnly` false
     * every version, lowest first.
     */
    async schemaVersions(organizationId: string, env: Env | undefined, latestOnly: boolean) {
      const structures = await store.listStructures(organizationId, {})
      const slots = await store.versionSlotsOf(
        structures.map((structure) => structure.hash),
        env,
      )
      // Only the schemas answered are read, a page at a time.
      const chosen = structures.flatMap((structure) => {
        const ordered = versionsInOrder(slots.get(structure.hash) ?? [])
        return latestOnly ? ordered.slice(-1) : ordered
      })
      return (await store.withSchemas(chosen)).map((version) => version.text)
    },

    /** Raw schemas of every version of one data structure (in `env`, or in either), lowest first. */
    async structureVersions(organizationId: string, hash: string, env: Env | undefined) {
      await structureOrThrow(organizationId, hash)
      return versionsInOrder(await store.versions(hash, env)).map((version) => version.text)
    },

    /** What changes from a deployed version (PROD, else DEV) to a new schema, for snowplow-cli. */
    async migration(organizationId: string, input: MigrationInput): Promise<SchemaMigration> {
      refuseInvalidTarget(await deps.checkDocument(input.targetSchema))
      const { vendor, name, format, version } = input.sourceSchemaKey
      const deployed = await this.getVersion(
        organizationId,
        dataStructureHash(organizationId, vendor, name, format),
        version,
        undefined,
      )
      return schemaMigration(
        deployed.schema,
        input.targetSchema as Record<string, unknown>,
        deps.compatibility,
      )
    },

    /**
     * PUT replaces the metadata (missing fields take their defaults); PATCH changes only the given
     * fields. Read and written under the structure's lock: concurrent PATCHes keep their fields.
     */
    async updateMeta(
      organizationId: string,
      hash: string,
      input: MetaInput,
      mode: 'replace' | 'merge',
    ) {
      const { structure, meta } = await deps.db.transaction().execute(async (trx) => {
        const tx = createRegistryStore(trx)
        await tx.lockStructure(hash)
        const found = await tx.findStructure(organizationId, hash)
        if (found === null) throw new DataStructureNotFoundError(hash)
        const base = mode === 'replace' ? DEFAULT_META : found.meta
        await tx.updateMeta(hash, { ...base, ...input })
        return { structure: found, meta: { ...base, ...input } as StructureMeta }
      })
      const current = await store.currentDeployments([hash])
      return dataStructureView({ ...structure, meta }, current.get(hash) ?? [])
    },
  }
}

export type RegistryService = ReturnType<typeof createRegistryService>
