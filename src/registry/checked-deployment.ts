import type { Kysely } from 'kysely'
import type { CompatibilityChecker } from '../compatibility/index.js'
import { parseSchemaVer, schemaKeyToUri } from '../iglu/index.js'
import {
  CheckedInputsChangedError,
  checkDeploymentRequest,
  deploySchema,
  type DeploymentOutcome,
  type DeploymentRequest,
  type Initiator,
} from './deploy-schema.js'
import { deploymentInputs } from './deployment-inputs.js'
import { ChangedDuringDeploymentError, MisversionedChangeError } from './registry.errors.js'
import type { RegistryStore } from './registry.store.js'
import type { RegistryTables } from './registry.table.js'
import { blocksProduction, versionChange, type VersionChange } from './version-change.js'

/** Checks of one deployment, at most, when the versions it is checked against keep changing. */
const ATTEMPTS = 5

/**
 * A deployment with what it changes from the version before it. The change is measured by the
 * compatibility engine before the structure's lock is taken; the deployment then writes only if
 * what the change was measured on is still there (`deploymentInputs`), else it is checked again.
 * So a version whose number understates a breaking change never reaches PROD because the DEV
 * version was patched, or a lower version deployed, while it was being checked.
 */
export async function deployWithChange(
  deps: {
    readonly db: Kysely<RegistryTables>
    readonly store: RegistryStore
    readonly compatibility: CompatibilityChecker
    readonly now: () => Date
  },
  organizationId: string,
  request: DeploymentRequest,
  options: { patch: boolean; initiator: Initiator },
): Promise<{ readonly outcome: DeploymentOutcome; readonly change: VersionChange | null }> {
  // What needs no store is refused first (a wrong move 400, a non-admin to PROD 403), as an
  // asynchronous request is refused before it is accepted; deploySchema checks it again.
  checkDeploymentRequest(request, options.initiator)
  for (let attempt = 1; ; attempt++) {
    const inputs = await deploymentInputs(deps.store, organizationId, request)
    const change =
      inputs.schema === undefined
        ? null
        : await versionChange(request.version, inputs.schema, inputs.deployed, deps.compatibility)
    if (blocksProduction(change) && request.target === 'PROD' && request.allowMisversioned !== true)
      throw new MisversionedChangeError(uriOf(request), change)
    try {
      const outcome = await deploySchema(deps.db, organizationId, request, {
        ...options,
        now: deps.now(),
        checked: inputs,
      })
      return { outcome, change }
    } catch (error) {
      if (!(error instanceof CheckedInputsChangedError)) throw error
      if (attempt >= ATTEMPTS) throw new ChangedDuringDeploymentError(uriOf(request), attempt)
    }
  }
}

const uriOf = (request: DeploymentRequest) =>
  schemaKeyToUri({ ...request, version: parseSchemaVer(request.version)! })
