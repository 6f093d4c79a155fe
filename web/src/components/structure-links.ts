import type { DataStructure } from '../api/registry.js'
import type { Scenario } from '../api/tracking-plans.js'

/** The parts of an Iglu URI, `iglu:vendor/name/format/version`; null for anything else. */
export function igluParts(
  uri: string,
): { vendor: string; name: string; format: string; version: string } | null {
  const match = /^iglu:([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(uri)
  if (match === null) return null
  const [, vendor = '', name = '', format = '', version = ''] = match
  return { vendor, name, format, version }
}

/** How an event specification uses a data structure. */
export interface StructureUse {
  readonly scenario: Scenario
  /** As its event, or as one of its entities. */
  readonly role: 'event' | 'entity'
  /** The version of the structure it names. */
  readonly version: string
}

const sameStructure = (
  uri: string | undefined,
  structure: Pick<DataStructure, 'vendor' | 'name' | 'format'>,
) => {
  const parts = uri === undefined ? null : igluParts(uri)
  return parts !== null &&
    parts.vendor === structure.vendor &&
    parts.name === structure.name &&
    parts.format === structure.format
    ? parts.version
    : null
}

/** The event specifications that name `structure`, as their event or as an entity, by name. */
export function specificationsUsing(
  scenarios: readonly Scenario[],
  structure: Pick<DataStructure, 'vendor' | 'name' | 'format'>,
): StructureUse[] {
  const uses: StructureUse[] = []
  for (const scenario of scenarios) {
    const asEvent = sameStructure(scenario.event?.source, structure)
    if (asEvent !== null) uses.push({ scenario, role: 'event', version: asEvent })
    const entities = [...(scenario.entities?.tracked ?? []), ...(scenario.entities?.enriched ?? [])]
    const asEntity = entities
      .map((entity) => sameStructure(entity.source, structure))
      .find((version) => version !== null)
    if (asEntity !== undefined && asEntity !== null)
      uses.push({ scenario, role: 'entity', version: asEntity })
  }
  return uses.sort((a, b) => a.scenario.name.localeCompare(b.scenario.name))
}

/** The registry's hash of the data structure an Iglu URI names, if it holds one. */
export function structureHashOf(
  uri: string,
  structures: readonly Pick<DataStructure, 'hash' | 'vendor' | 'name' | 'format'>[],
): string | null {
  const parts = igluParts(uri)
  if (parts === null) return null
  return (
    structures.find(
      (s) => s.vendor === parts.vendor && s.name === parts.name && s.format === parts.format,
    )?.hash ?? null
  )
}
