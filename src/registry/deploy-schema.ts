import type { Kysely } from 'kysely'
import { AdminRequiredError } from '../auth/index.js'
import type { RegistryTables } from './registry.table.js'
import {
  dataStructureHash,
  schemaKeyProblems,
  schemaKeyToUri,
  compareSchemaVer,
  parseSchemaVer,
  sequencingProblem,
  type SchemaVer,
} from '../iglu/index.js'
import type { DeploymentRequest, Initiator } from './deployment-request.js'
import { deploymentFingerprint, type DeploymentInputs } from './deployment-inputs.js'
import {
  DataStructureHashConflictError,
  InvalidDeploymentPathError,
  InvalidSchemaKeyError,
  NotInDevError,
  NotValidatedError,
  PatchRequiredError,
  ProdImmutableError,
  ValidatedContentChangedError,
  VersionGapError,
} from './registry.errors.js'
import {
  createRegistryStore,
  type Deployment,
  type Env,
  type RegistryStore,
  type SchemaVersion,
  type ValidatedCandidate,
} from './registry.store.js'

export type { DeploymentRequest, Initiator } from './deployment-request.js'

/** What a deployment did: a new history entry, or nothing because that content was already there. */
export type DeploymentOutcome =
  | {
      readonly kind: 'deployed'
      readonly hash: string
      readonly uri: string
      readonly deployment: Deployment
    }
  | {
      readonly kind: 'unchanged'
      readonly hash: string
      readonly uri: string
      readonly env: Env
      readonly contentHash: string
    }

function gapCheck(version: SchemaVer, existing: readonly SchemaVersion[], env: Env): void {
  const problem = sequencingProblem(
    version,
    existing.flatMap((v) => parseSchemaVer(v.version) ?? []),
  )
  if (problem !== null) throw new VersionGapError(problem, env)
}

/**
 * The schema a deployment was checked on, or a version of its structure, changed before the
 * deployment took the structure's lock: the check is made again (not a refusal of the request).
 */
export class CheckedInputsChangedError extends Error {
  constructor() {
    super('the deployment was checked on content that changed since')
  }
}

/**
 * What can be refused without the store: the move, the schema key, and who may deploy to PROD.
 * Asynchronous requests run it before they are accepted, so that they are refused as synchronous ones are.
 */
export function checkDeploymentRequest(
  request: DeploymentRequest,
  initiator: Initiator,
): SchemaVer {
  const path = `${request.source}->${request.target}`
  if (path !== 'VALIDATED->DEV' && path !== 'DEV->PROD')
    throw new InvalidDeploymentPathError(request.source, request.target)
  const problems = schemaKeyProblems(request)
  // The registry keeps JSON Schemas only (as validation says): another format names nothing it has.
  if (problems.length === 0 && request.format !== 'jsonschema')
    problems.push(
      `format ${JSON.stringify(request.format.slice(0, 100))} must be "jsonschema": the registry keeps JSON Schemas only`,
    )
  const version = parseSchemaVer(request.version)
  if (problems.length > 0 || version === null) throw new InvalidSchemaKeyError(problems)
  if (request.target === 'PROD' && !initiator.isAdmin)
    throw new AdminRequiredError('deploy to PROD')
  return version
}

/**
 * Moves one schema version VALIDATED → DEV or DEV → PROD, in one transaction that also holds the
 * structure's lock, so concurrent deployments of one structure happen one after the other; only
 * if what it was checked on (`deploymentInputs`, read before) is still there.
 */
export async function deploySchema(
  db: Kysely<RegistryTables>,
  organizationId: string,
  request: DeploymentRequest,
  options: {
    patch: boolean
    initiator: Initiator
    now: Date
    /** The inputs the deployment was checked on: their fingerprint must hold, the candidate is written. */
    checked: Pick<DeploymentInputs, 'fingerprint' | 'candidate'>
  },
): Promise<DeploymentOutcome> {
  const version = checkDeploymentRequest(request, options.initiator)
  const hash = dataStructureHash(organizationId, request.vendor, request.name, request.format)
  const uri = schemaKeyToUri({ ...request, version })
  return db.transaction().execute(async (trx) => {
    const store = createRegistryStore(trx)
    await store.lockStructure(hash)
    const { checked } = options
    if (deploymentFingerprint(request, await store.versions(hash)) !== checked.fingerprint)
      throw new CheckedInputsChangedError()
    await refuseHashConflict(store, organizationId, hash, request)
    const candidate = request.target === 'DEV' ? checked.candidate : null
    const step = { store, hash, uri, version, request, options, organizationId, candidate }
    return request.target === 'DEV' ? toDev(step) : toProd(step)
  })
}

const structureUri = (key: { vendor: string; name: string; format: string }) =>
  `iglu:${key.vendor}/${key.name}/${key.format}`

/** Refuses a request whose structure hash is already another structure's: identity is vendor, name and format. */
export async function refuseHashConflict(
  store: RegistryStore,
  organizationId: string,
  hash: string,
  key: { vendor: string; name: string; format: string },
): Promise<void> {
  const existing = await store.findStructure(organizationId, hash)
  if (
    existing !== null &&
    (existing.vendor !== key.vendor || existing.name !== key.name || existing.format !== key.format)
  ) {
    throw new DataStructureHashConflictError(structureUri(key), structureUri(existing), hash)
  }
}

/** Refuses content other than the content the request names, if it names one. */
function expectContent(request: DeploymentRequest, uri: string, found: string | null): void {
  const expected = request.contentHash
  if (expected !== undefined && expected !== null && expected !== found)
    throw new ValidatedContentChangedError(uri, expected, found)
}

interface Step {
  readonly store: RegistryStore
  readonly hash: string
  readonly uri: string
  readonly version: SchemaVer
  readonly request: DeploymentRequest
  readonly options: { patch: boolean; initiator: Initiator; now: Date }
  readonly organizationId: string
  /** The validated candidate a deployment to DEV writes. */
  readonly candidate: ValidatedCandidate | null
}

async function toDev({
  store,
  hash,
  uri,
  version,
  request,
  options,
  organizationId,
  candidate,
}: Step): Promise<DeploymentOutcome> {
  expectContent(request, uri, candidate?.contentHash ?? null)
  if (candidate === null) throw new NotValidatedError(uri)
  const description =
    typeof candidate.schema.description === 'string' ? candidate.schema.description : null
  const isNew = (await store.findStructure(organizationId, hash)) === null
  if (isNew)
    await store.insertStructure({
      ...request,
      hash,
      organizationId,
      description,
      meta: candidate.meta,
    })
  const dev = await store.versions(hash, 'DEV')
  // The record's description follows the schema's own, as of the newest version in DEV.
  const isNewest = dev.every((deployed) => {
    const other = parseSchemaVer(deployed.version)
    return other === null || compareSchemaVer(other, version) <= 0
  })
  if (!isNew && isNewest) await store.updateDescription(hash, description)
  const existing = dev.find((v) => v.version === request.version)
  if (existing?.contentHash === candidate.contentHash)
    return { kind: 'unchanged', hash, uri, env: 'DEV', contentHash: candidate.contentHash }
  if (existing !== undefined) {
    // A version in PROD is never patched: said first, so that no client is told to patch it.
    const prod = await store.versions(hash, 'PROD')
    if (prod.some((v) => v.version === request.version)) throw new ProdImmutableError(uri)
    if (!options.patch) throw new PatchRequiredError(uri)
  } else {
    gapCheck(version, dev, 'DEV')
  }
  const patchLevel = existing === undefined ? 0 : existing.patchLevel + 1
  return record(
    store,
    hash,
    uri,
    options,
    {
      env: 'DEV',
      version: request.version,
      schema: candidate.schema,
      text: candidate.text,
      contentHash: candidate.contentHash,
      patchLevel,
    },
    request.message ?? null,
  )
}

async function toProd({
  store,
  hash,
  uri,
  version,
  request,
  options,
}: Step): Promise<DeploymentOutcome> {
  const dev = (await store.versions(hash, 'DEV')).find((v) => v.version === request.version)
  expectContent(request, uri, dev?.contentHash ?? null)
  if (dev === undefined) throw new NotInDevError(uri)
  const prod = await store.versions(hash, 'PROD')
  const existing = prod.find((v) => v.version === request.version)
  if (existing?.contentHash === dev.contentHash)
    return { kind: 'unchanged', hash, uri, env: 'PROD', contentHash: dev.contentHash }
  if (existing !== undefined) throw new ProdImmutableError(uri)
  gapCheck(version, prod, 'PROD')
  return record(store, hash, uri, options, { ...dev, env: 'PROD' }, request.message ?? null)
}

async function record(
  store: RegistryStore,
  hash: string,
  uri: string,
  options: { initiator: Initiator; now: Date },
  version: SchemaVersion,
  message: string | null,
): Promise<DeploymentOutcome> {
  await store.putVersion(hash, version, options.now)
  const deployment: Deployment = {
    version: version.version,
    patchLevel: version.patchLevel,
    contentHash: version.contentHash,
    env: version.env,
    ts: options.now,
    message,
    initiator: options.initiator.apiKeyId,
    initiatorName: options.initiator.name ?? null,
  }
  await store.appendDeployment(hash, deployment)
  return { kind: 'deployed', hash, uri, deployment }
}
