/**
 * A record without its null fields. Go clients such as snowplow-cli send unset optional fields as
 * null; written records read them as absent.
 */
export function withoutNulls<T extends object>(record: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== null)) as {
    [K in keyof T]: Exclude<T[K], null>
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * A scenario definition with its unset fields (null) left out: at the top, in `event`, `entities`,
 * each entity and each trigger. Schemas (`event.schema`, an entity's `schema`) are left as they
 * are: a null there is a value.
 */
export function scenarioWithoutNulls(fields: Record<string, unknown>): Record<string, unknown> {
  const kept = withoutNulls(fields) as Record<string, unknown>
  if (isRecord(kept.event)) kept.event = withoutNulls(kept.event)
  if (isRecord(kept.entities)) {
    const entities = withoutNulls(kept.entities) as Record<string, unknown>
    for (const list of ['tracked', 'enriched']) {
      const items = entities[list]
      if (Array.isArray(items))
        entities[list] = items.map((item) => (isRecord(item) ? withoutNulls(item) : item))
    }
    kept.entities = entities
  }
  if (Array.isArray(kept.triggers))
    kept.triggers = kept.triggers.map((trigger) =>
      isRecord(trigger) ? withoutNulls(trigger) : trigger,
    )
  return kept
}
