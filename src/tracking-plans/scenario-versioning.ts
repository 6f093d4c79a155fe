import { problemError, type Problem } from './scenario-problem.js'
import type { ScenarioStatus } from './scenarios.schemas.js'

export const SCENARIO_STATUSES: readonly ScenarioStatus[] = ['draft', 'published', 'deprecated']
/** Versions are stored as PostgreSQL integers. */
export const MAX_SCENARIO_VERSION = 2_147_483_647

/** A version kept in a scenario's history. */
export interface KeptVersion {
  readonly version: number
  readonly status: ScenarioStatus
}

export function isScenarioStatus(value: string): value is ScenarioStatus {
  return (SCENARIO_STATUSES as readonly string[]).includes(value)
}

/**
 * Any status may follow any other: the spec suggests draft → published → deprecated but allows
 * flexibility (deprecated → draft "undeprecates"), so only the value itself is checked.
 */
export function statusProblems(status: string | undefined): Problem[] {
  if (status === undefined || isScenarioStatus(status)) return []
  return [
    problemError(
      'InvalidStatus',
      'status',
      `status must be one of ${SCENARIO_STATUSES.join(', ')}, not ${JSON.stringify(status.slice(0, 100))}`,
    ),
  ]
}

function rangeProblems(version: number): Problem[] {
  if (version < 0)
    return [problemError('InvalidVersion', 'version', `version must be >= 0, not ${version}`)]
  if (version > MAX_SCENARIO_VERSION)
    return [problemError('InvalidVersion', 'version', `version must be <= ${MAX_SCENARIO_VERSION}`)]
  return []
}

export function lastPublishedVersion(kept: readonly KeptVersion[]): number | null {
  let last: number | null = null
  for (const { version, status } of kept)
    if (status === 'published' && (last === null || version > last)) last = version
  return last
}

/** On create a given version only has to be in range. */
export function createVersionProblems(version: number | undefined): Problem[] {
  return version === undefined ? [] : rangeProblems(version)
}

/** On edit a given version must also be unused and above the last published one. */
export function editVersionProblems(
  version: number | undefined,
  kept: readonly KeptVersion[],
): Problem[] {
  if (version === undefined) {
    const next = nextVersion(undefined, kept)
    if (next <= MAX_SCENARIO_VERSION) return []
    return [
      problemError(
        'InvalidVersion',
        'version',
        `no version is left after ${next - 1}, the highest kept: versions go up to ${MAX_SCENARIO_VERSION}; give an unused version`,
      ),
    ]
  }
  const range = rangeProblems(version)
  if (range.length > 0) return range
  if (kept.some((k) => k.version === version)) {
    return [
      problemError(
        'InvalidVersion',
        'version',
        `version ${version} already exists; give an unused version, or omit it to take the next one`,
      ),
    ]
  }
  const published = lastPublishedVersion(kept)
  if (published !== null && version <= published) {
    return [
      problemError(
        'InvalidVersion',
        'version',
        `version must be greater than the last published version, ${published}`,
      ),
    ]
  }
  return []
}

/** The version an edit gets: the one given, else one above every kept version. */
export function nextVersion(given: number | undefined, kept: readonly KeptVersion[]): number {
  return given ?? kept.reduce((max, k) => Math.max(max, k.version + 1), 0)
}

/**
 * Publishing squashes history: the unpublished versions lying between the previous published
 * version and the one being published are discarded. Nothing is discarded before the first publication.
 */
export function versionsDiscardedByPublishing(
  version: number,
  status: ScenarioStatus,
  kept: readonly KeptVersion[],
): number[] {
  if (status !== 'published') return []
  const previous = lastPublishedVersion(kept.filter((k) => k.version < version))
  if (previous === null) return []
  return kept
    .filter((k) => k.status !== 'published' && k.version > previous && k.version < version)
    .map((k) => k.version)
}
