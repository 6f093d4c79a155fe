import {
  indexSpecifications,
  type EventSpecification,
  type SpecificationIndex,
} from './pipeline/steps/check-event-specification.js'

/** Where inspection reads the inspected organization's event specifications (the tracking plans). */
export interface SpecificationSource {
  list(): Promise<readonly EventSpecification[]>
  /** Changes whenever this instance writes a specification, data product or source application. */
  revision(): number
  /**
   * Whether other instances may write them (a shared PostgreSQL): then they are read again after
   * SPECIFICATIONS_TTL_MS. The embedded database has one writer, this instance, whose revision
   * says when to read them again: no periodic read (2 500 specifications took 150–240 ms of the
   * event loop every two seconds under ingest).
   */
  readonly sharedWithOtherInstances?: boolean
}

/**
 * How long specifications read from the database are trusted: writes by other instances sharing
 * it show within this time (this instance's own show at once, by the revision).
 */
export const SPECIFICATIONS_TTL_MS = 2000

/**
 * The specification index events are checked against, read again when this instance changed the
 * tracking plans or the last read is older than the TTL; one read at a time. A read that fails
 * keeps the index already held (none: no specification), so events are never lost to it.
 */
export function cachedSpecificationIndex(
  source: SpecificationSource,
  now: () => number,
  onError: (error: unknown) => void,
) {
  let held: { index: SpecificationIndex; at: number; revision: number } | null = null
  let reading: Promise<SpecificationIndex> | null = null
  const read = async (): Promise<SpecificationIndex> => {
    const revision = source.revision()
    try {
      const index = indexSpecifications(await source.list())
      held = { index, at: now(), revision }
      return index
    } catch (error) {
      onError(error)
      return held?.index ?? indexSpecifications([])
    } finally {
      reading = null
    }
  }
  return {
    current(): SpecificationIndex | Promise<SpecificationIndex> {
      if (
        held !== null &&
        held.revision === source.revision() &&
        (source.sharedWithOtherInstances === false || now() - held.at < SPECIFICATIONS_TTL_MS)
      )
        return held.index
      reading ??= read()
      return reading
    },
  }
}
