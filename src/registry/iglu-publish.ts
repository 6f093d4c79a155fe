import { requireIgluWrite, type Principal } from '../auth/index.js'
import {
  compareSchemaVer,
  formatSchemaVer,
  objectMembers,
  objectText,
  parseSchemaVer,
  schemaKeyToUri,
  SELF_DESC_METASCHEMA_URI,
  sequencingProblem,
  type SchemaKey,
} from '../iglu/index.js'
import { isJsonObject, OneAtATimeByKey } from '../shared/index.js'
import { igluReport, type IgluReportItemValue } from './iglu-lint-report.js'
import type { IgluRepository } from './iglu-repository.js'
import { initiatorOf } from './deployment-request.js'
import {
  InconsistentAvailabilityError,
  InvalidSupersedesError,
  MisversionedChangeError,
  SchemaAlreadyExistsError,
  VersionGapError,
} from './registry.errors.js'
import type { RegistryService } from './registry.service.js'
import type { CrossInstanceLock } from './iglu-write-lock.js'
import type { Env } from './registry.store.js'
import { blocksProduction } from './version-change.js'

/** A schema written through Iglu Server's API: PUT names it in the path, POST only in its `self`. */
export interface IgluWrite {
  readonly organizationId: string
  readonly env: Env
  readonly principal: Principal
  /** The body: a self-describing schema, or (PUT) the schema alone. */
  readonly body: unknown
  /** The body as sent, so that numbers stay as written; null when unknown. */
  readonly bodyText: string | null
  /** The key in a PUT's path; null for a POST. */
  readonly pathKey: SchemaKey | null
  readonly isPublic: boolean
  /** Write a version whose number understates its change to PROD all the same. */
  readonly allowMisversioned: boolean
}

/** What Iglu Server answers: written (201 created, 200 updated), or refused with its own 400 bodies. */
export type IgluWriteOutcome =
  | { readonly kind: 'written'; readonly created: boolean; readonly uri: string }
  | { readonly kind: 'undecodable' }
  | { readonly kind: 'mismatch'; readonly uriSchemaKey: string; readonly payloadSchemaKey: string }
  | { readonly kind: 'invalid'; readonly report: IgluReportItemValue[] }

const MESSAGE = 'Written through the Iglu API'

/** The `self` of a body, when it names a vendor, name, format and a SchemaVer. */
function selfKey(body: Record<string, unknown>): SchemaKey | null {
  const self = body.self
  if (!isJsonObject(self)) return null
  const { vendor, name, format, version } = self
  if (typeof vendor !== 'string' || typeof name !== 'string' || typeof format !== 'string')
    return null
  const schemaVer = typeof version === 'string' ? parseSchemaVer(version) : null
  return schemaVer === null ? null : { vendor, name, format, version: schemaVer }
}

const sameKey = (a: SchemaKey, b: SchemaKey) => schemaKeyToUri(a) === schemaKeyToUri(b)

/** A body that is the schema alone, made self-describing with the path's key (text kept as sent). */
function describedByPath(body: Record<string, unknown>, text: string | null, key: SchemaKey) {
  const self = {
    vendor: key.vendor,
    name: key.name,
    format: key.format,
    version: formatSchemaVer(key.version),
  }
  const data = { $schema: SELF_DESC_METASCHEMA_URI, self, ...body }
  const members = text === null ? null : objectMembers(text)
  const dataText =
    members === null
      ? JSON.stringify(data)
      : objectText([
          ['$schema', JSON.stringify(SELF_DESC_METASCHEMA_URI)],
          ['self', JSON.stringify(self)],
          ...[...members].filter(([name]) => name !== '$schema' && name !== 'self'),
        ])
  return { data, dataText }
}

/**
 * Iglu writes, one at a time for each structure. Each writes a schema as Iglu Server does, into
 * the registry with one history: the registry's validation (refused only for errors), then a
 * deployment VALIDATED → DEV, and for the PROD base DEV → PROD too, each recorded as a deployment
 * by the key. DEV versions are patched in place (Iglu's `patchesAllowed`); a PROD version is never
 * replaced. What can be refused is refused before anything is written.
 */
export function createIgluWrites(deps: {
  readonly service: RegistryService
  readonly repository: IgluRepository
  /** With instances sharing a PostgreSQL server: the lock they all respect, taken for each write. */
  readonly crossInstance?: CrossInstanceLock | undefined
}) {
  // An Iglu write checks, then deploys twice, then sets availability: two writes of one structure
  // at once could each pass the checks the other's write then breaks (a PROD version written
  // twice, versions of mixed availability), so they go one after the other, on every instance
  // sharing the database.
  const oneAtATime = new OneAtATimeByKey()
  return {
    write: (write: IgluWrite): Promise<IgluWriteOutcome> => {
      const key = keyOf(write)
      if (key === null) return writeThroughIglu(deps, write)
      const lockKey = JSON.stringify([write.organizationId, key.vendor, key.name, key.format])
      const { crossInstance } = deps
      // Waiters of this process queue here, holding no connection; then the instances' lock.
      return oneAtATime.run(lockKey, () =>
        crossInstance === undefined
          ? writeThroughIglu(deps, write)
          : crossInstance(`iglu-write:${lockKey}`, () => writeThroughIglu(deps, write)),
      )
    },
  }
}
export type IgluWrites = ReturnType<typeof createIgluWrites>

/** The key a write names (its body's `self`, else its path), when it names one. */
function keyOf(write: IgluWrite): SchemaKey | null {
  return (isJsonObject(write.body) ? selfKey(write.body) : null) ?? write.pathKey
}

async function writeThroughIglu(
  deps: { readonly service: RegistryService; readonly repository: IgluRepository },
  write: IgluWrite,
): Promise<IgluWriteOutcome> {
  const { organizationId, env, principal, body, pathKey } = write
  if (!isJsonObject(body)) return { kind: 'undecodable' }
  const ownKey = selfKey(body)
  const isSelfDescribing = isJsonObject(body.self)
  if (pathKey === null && !isSelfDescribing) return { kind: 'undecodable' }
  if (pathKey !== null && ownKey !== null && !sameKey(pathKey, ownKey))
    return {
      kind: 'mismatch',
      uriSchemaKey: schemaKeyToUri(pathKey),
      payloadSchemaKey: schemaKeyToUri(ownKey),
    }
  const key = ownKey ?? pathKey
  requireIgluWrite(principal, key?.vendor ?? null, env)
  const { data, dataText } =
    isSelfDescribing || pathKey === null
      ? { data: body, dataText: write.bodyText }
      : describedByPath(body, write.bodyText, pathKey)
  const validation = await deps.service.validate(organizationId, {
    data,
    ...(dataText === null ? {} : { bodyText: `{"data":${dataText}}` }),
  })
  if (!validation.success || key === null)
    return { kind: 'invalid', report: igluReport(validation) }

  const uri = schemaKeyToUri(key)
  const existing = await deps.repository.find(organizationId, env, key)
  if (env === 'PROD' && existing !== null) throw new SchemaAlreadyExistsError(uri)
  const group = await deps.repository.listKeys(organizationId, env, {
    vendor: key.vendor,
    name: key.name,
    format: key.format,
  })
  const others = group.filter((schema) => schema.uri !== uri)
  if (others.length > 0 && others.some((schema) => schema.isPublic !== write.isPublic))
    throw new InconsistentAvailabilityError(uri, env, !write.isPublic)
  const supersedes = supersedesProblem(data, key, others)
  if (supersedes !== null) throw new InvalidSupersedesError(uri, supersedes)
  const change = validation.versionChange as
    | {
        misversioned: boolean
        breaksOnlyAddedProperties?: true
        previousVersion: string
        changeType: string
        suggestedVersion: string
      }
    | undefined
  if (env === 'PROD' && blocksProduction(change) && !write.allowMisversioned)
    throw new MisversionedChangeError(uri, change)
  // A version gap in PROD is refused before DEV is written; the PROD deployment checks it again.
  if (env === 'PROD' && existing === null) {
    const { vendor, name, format } = key
    const prod = await deps.repository.listKeys(organizationId, 'PROD', { vendor, name, format })
    const gap = sequencingProblem(
      key.version,
      prod.map((schema) => schema.key.version),
    )
    if (gap !== null) throw new VersionGapError(gap, 'PROD')
  }

  const request = {
    vendor: key.vendor,
    name: key.name,
    format: key.format,
    version: formatSchemaVer(key.version),
  }
  // The key's right to write here was checked above (an Iglu write key may write PROD).
  const initiator = { ...initiatorOf(principal), isAdmin: true }
  await deps.service.deploy(
    organizationId,
    {
      ...request,
      source: 'VALIDATED',
      target: 'DEV',
      message: MESSAGE,
      contentHash: validation.contentHash as string,
    },
    { patch: true, initiator },
  )
  if (env === 'PROD')
    await deps.service.deploy(
      organizationId,
      {
        ...request,
        source: 'DEV',
        target: 'PROD',
        message: MESSAGE,
        allowMisversioned: true,
        // What was checked above, and nothing a write of another instance put in DEV meanwhile.
        contentHash: validation.contentHash as string,
      },
      { patch: false, initiator },
    )
  await deps.repository.setPublic(organizationId, env, key, write.isPublic)
  return { kind: 'written', created: existing === null, uri }
}

/**
 * What is wrong with a schema's `$supersedes`, as Iglu Server checks it: each must be a version of
 * the group that already exists and is lower than the schema's own. Null when nothing is.
 */
function supersedesProblem(
  data: unknown,
  key: SchemaKey,
  others: readonly { readonly key: SchemaKey }[],
): string | null {
  const listed = isJsonObject(data) ? data.$supersedes : undefined
  if (listed === undefined) return null
  if (!Array.isArray(listed)) return 'it must be an array of versions'
  const own = formatSchemaVer(key.version)
  const existing = new Set(others.map((other) => formatSchemaVer(other.key.version)))
  for (const item of listed) {
    const version = typeof item === 'string' ? parseSchemaVer(item) : null
    if (version === null) return `${JSON.stringify(item)?.slice(0, 100)} is not a SchemaVer`
    const text = formatSchemaVer(version)
    if (compareSchemaVer(version, key.version) >= 0) return `${text} is not lower than ${own}`
    if (!existing.has(text)) return `${text} does not exist in this environment`
  }
  return null
}
