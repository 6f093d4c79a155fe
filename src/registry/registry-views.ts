import { compareSchemaVer, parseSchemaVer } from '../iglu/index.js'
import type { DataStructure, Deployment, SchemaVersion } from './registry.store.js'

/** ISO 8601 UTC with seconds and no milliseconds, as the Console writes `ts`. */
export function toSecondsIso(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`
}

export function deploymentView(deployment: Deployment) {
  return {
    version: deployment.version,
    patchLevel: deployment.patchLevel,
    contentHash: deployment.contentHash,
    env: deployment.env,
    ts: toSecondsIso(deployment.ts),
    message: deployment.message,
    // Who, in words (the key's description), as the Console names a person; else the key's id.
    initiator: deployment.initiatorName ?? deployment.initiator,
    initiatorId: deployment.initiator,
  }
}

/** A data structure record, with its current deployment per environment (PROD first, then DEV). */
export function dataStructureView(structure: DataStructure, current: readonly Deployment[]) {
  const ordered = [...current].sort((a, b) => (a.env === b.env ? 0 : a.env === 'PROD' ? -1 : 1))
  return {
    hash: structure.hash,
    organizationId: structure.organizationId,
    vendor: structure.vendor,
    name: structure.name,
    format: structure.format,
    description: structure.description,
    meta: structure.meta,
    deployments: ordered.map(deploymentView),
  }
}

export type DataStructureView = ReturnType<typeof dataStructureView>
export type DeploymentView = ReturnType<typeof deploymentView>

/** One entry per version, lowest first: a version deployed to both environments once, as DEV has it. */
export function versionsInOrder<V extends Pick<SchemaVersion, 'env' | 'version'>>(
  versions: readonly V[],
): V[] {
  const once = new Map<string, V>()
  for (const version of versions)
    if (!once.has(version.version) || version.env === 'DEV') once.set(version.version, version)
  return [...once.values()].sort((a, b) =>
    compareSchemaVer(parseSchemaVer(a.version)!, parseSchemaVer(b.version)!),
  )
}
