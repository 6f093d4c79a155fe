import type { FlatEvent } from '../../api/inspection.js'

/** The canonical fields, grouped as a person looks for them; anything else goes under "Other". */
export const FIELD_GROUPS: readonly {
  readonly name: string
  readonly test: (field: string) => boolean
}[] = [
  {
    name: 'Event',
    test: (f) =>
      /^(event|event_id|event_name|event_vendor|event_version|event_format|event_fingerprint|txn_id|name_tracker|v_tracker|v_collector|v_etl|etl_tags)$/.test(
        f,
      ),
  },
  { name: 'Application', test: (f) => /^(app_id|platform)$/.test(f) },
  { name: 'Time', test: (f) => f.endsWith('_tstamp') || f === 'os_timezone' },
  {
    name: 'User',
    test: (f) =>
      /^(user_id|domain_userid|domain_sessionid|domain_sessionidx|network_userid|user_ipaddress|user_fingerprint)$/.test(
        f,
      ),
  },
  {
    name: 'Page',
    test: (f) => f.startsWith('page_') || f.startsWith('refr_') || f.startsWith('pp_'),
  },
  { name: 'Structured event', test: (f) => f.startsWith('se_') },
  { name: 'Marketing', test: (f) => f.startsWith('mkt_') },
  { name: 'Browser and device', test: (f) => /^(br_|os_|dvce_|doc_|useragent)/.test(f) },
  { name: 'Geo and IP', test: (f) => f.startsWith('geo_') || f.startsWith('ip_') },
  { name: 'Commerce', test: (f) => /^(tr_|ti_|base_currency)/.test(f) },
]

export const isEntityColumn = (field: string) =>
  field.startsWith('contexts_') || field.startsWith('unstruct_event_')

/** The event's scalar fields, by group, leaving out the empty ones. */
export function groupedFields(event: FlatEvent): { name: string; fields: [string, unknown][] }[] {
  const groups = new Map<string, [string, unknown][]>()
  for (const [field, value] of Object.entries(event)) {
    if (isEntityColumn(field) || value === null || value === undefined || value === '') continue
    const group = FIELD_GROUPS.find((g) => g.test(field))?.name ?? 'Other'
    groups.set(group, [...(groups.get(group) ?? []), [field, value]])
  }
  return [...FIELD_GROUPS.map((g) => g.name), 'Other']
    .filter((name) => groups.has(name))
    .map((name) => ({ name, fields: groups.get(name) ?? [] }))
}

/** A cell's text: a scalar as written, an entity or a list as compact JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/** The value of a column, `column.path.inside` for a property inside an entity or the event. */
export function columnValue(event: FlatEvent, column: string): unknown {
  const dot = column.indexOf('.')
  if (dot === -1) return event[column]
  let values: unknown[] = [event[column.slice(0, dot)]]
  for (const part of column.slice(dot + 1).split('.')) {
    values = values.flatMap((value) =>
      Array.isArray(value)
        ? value.map((item) =>
            item !== null && typeof item === 'object'
              ? (item as Record<string, unknown>)[part]
              : undefined,
          )
        : value !== null && typeof value === 'object'
          ? [(value as Record<string, unknown>)[part]]
          : [],
    )
  }
  const found = values.filter((v) => v !== undefined)
  return found.length === 0 ? undefined : found.length === 1 ? found[0] : found
}
