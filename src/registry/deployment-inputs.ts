import { compareSchemaVer, dataStructureHash, parseSchemaVer } from '../iglu/index.js'
import type { DeploymentRequest } from './deployment-request.js'
import type { RegistryStore, SchemaVersion, ValidatedCandidate } from './registry.store.js'

/**
 * What a deployment is judged on, read before its compatibility check (which takes too long to
 * hold the structure's lock): the validated candidate it deploys (VALIDATED → DEV), and the
 * deployed versions. `fingerprint` names by content what the judgement depends on that another
 * request may change before the deployment takes the lock: the DEV version it promotes
 * (DEV → PROD) and the versions below it, which the change is measured against. A candidate
 * is not in it: the deployment writes the candidate it read, whatever was validated since.
 */
export interface DeploymentInputs {
  readonly deployed: readonly SchemaVersion[]
  /** The validated candidate (VALIDATED → DEV), as read. */
  readonly candidate: ValidatedCandidate | null
  /** The schema to deploy, when its source slot holds one. */
  readonly schema: Record<string, unknown> | undefined
  readonly fingerprint: string
}

export async function deploymentInputs(
  store: RegistryStore,
  organizationId: string,
  request: DeploymentRequest,
): Promise<DeploymentInputs> {
  if (parseSchemaVer(request.version) === null)
    return { deployed: [], candidate: null, schema: undefined, fingerprint: '' }
  const hash = dataStructureHash(organizationId, request.vendor, request.name, request.format)
  const deployed = await store.versions(hash)
  const candidate =
    request.source === 'VALIDATED'
      ? await store.findValidated({
          organizationId,
          vendor: request.vendor,
          name: request.name,
          format: request.format,
          version: request.version,
        })
      : null
  const promoted =
    request.source === 'DEV'
      ? deployed.find((v) => v.env === 'DEV' && v.version === request.version)
      : undefined
  return {
    deployed,
    candidate,
    schema: candidate?.schema ?? promoted?.schema,
    fingerprint: deploymentFingerprint(request, deployed),
  }
}

/**
 * The deployed versions a deployment's judgement depends on, named by content: the DEV version it
 * promotes (DEV → PROD) and the versions below it. Read again under the structure's lock, it
 * tells whether they changed since the judgement.
 */
export function deploymentFingerprint(
  request: DeploymentRequest,
  deployed: readonly SchemaVersion[],
): string {
  const version = parseSchemaVer(request.version)
  if (version === null) return ''
  const promoted =
    request.source === 'DEV'
      ? deployed.find((v) => v.env === 'DEV' && v.version === request.version)
      : undefined
  const below = deployed
    .filter((v) => {
      const other = parseSchemaVer(v.version)
      return other !== null && compareSchemaVer(other, version) < 0
    })
    .map((v) => `${v.env} ${v.version} ${v.contentHash}`)
    .sort()
  return JSON.stringify([promoted?.contentHash ?? null, below])
}
