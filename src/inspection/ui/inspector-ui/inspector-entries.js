// The event inspector's entries: each stored event (good) or bad row as the page lists and
// searches it, derived from the inspection API's answers alone (no page, no request).

export const text = (value) =>
  value === null || value === undefined
    ? ''
    : typeof value === 'string'
      ? value
      : JSON.stringify(value)

const VERDICT_SCHEMA =
  'iglu:com.snowplowanalytics.snowplow/event_specification_validation/jsonschema/1-0-0'

/** The entities of an event's contexts or derived contexts: [{schema, data}]. */
const entitiesOf = (contexts) =>
  contexts && Array.isArray(contexts.data) ? contexts.data.filter((c) => c && c.schema) : []

/** The entity or event name of a schema URI: `iglu:com.shop/product/jsonschema/1-0-0` → product. */
const schemaName = (uri) => (/^iglu:[^/]+\/([^/]+)\//.exec(text(uri)) || [])[1] || ''

/**
 * Every property of an event as [path, lower-case value]: the atomic fields by name, and each
 * entity's and the self-describing event's properties under its name (`product.sku`), nested
 * properties and array items included. What `field = value` searches.
 */
function propertiesOf(event) {
  const found = []
  const roots = Object.entries(event)
    .filter(([, value]) => value === null || typeof value !== 'object')
    .map(([name, value]) => [name, value])
  for (const entity of [...entitiesOf(event.contexts), ...entitiesOf(event.derived_contexts)])
    roots.push([schemaName(entity.schema), entity.data])
  const unstruct = event.unstruct_event && event.unstruct_event.data
  if (unstruct && unstruct.schema) roots.push([schemaName(unstruct.schema), unstruct.data])
  const stack = roots.slice()
  while (stack.length > 0) {
    const [path, value] = stack.pop()
    if (Array.isArray(value)) for (const item of value) stack.push([path, item])
    else if (value !== null && typeof value === 'object')
      for (const [key, child] of Object.entries(value)) stack.push([`${path}.${key}`, child])
    else found.push([path.toLowerCase(), text(value).toLowerCase()])
  }
  return found
}

/** A search `path = value` (the path's end is enough: `sku = abc` finds `product.sku`), or null. */
function propertySearch(wanted) {
  const parts = /^([\w.-]+)\s*=\s*(.*)$/.exec(wanted)
  return parts === null ? null : { path: parts[1], value: parts[2].trim() }
}

function entry(kind, data, key, time, type, schema, appId, details, extra, schemas, properties) {
  const fields = [type, schema, appId, details].map(text)
  return {
    kind,
    data,
    key,
    time,
    type: fields[0],
    schema: fields[1],
    appId: fields[2],
    details: fields[3],
    haystack: [kind, ...fields, ...extra].join(' ').toLowerCase(),
    properties: properties || [],
    schemas: [...new Set(schemas)],
    row: null,
  }
}

export function goodEntry(good) {
  const event = good.event || {}
  const contexts = Array.isArray(good.contexts) ? good.contexts.map(text) : []
  const what =
    event.event === 'struct'
      ? [event.se_category, event.se_action, event.se_label]
          .filter((v) => v !== null && v !== undefined)
          .map(text)
          .join(' / ')
      : text(event.page_url)
  const verdict = entitiesOf(event.derived_contexts).find((c) => c.schema === VERDICT_SCHEMA)
  const spec = verdict && verdict.data ? verdict.data : null
  const specNote =
    spec === null
      ? ''
      : spec.isValid
        ? `spec ✓ ${text(spec.eventSpecification && spec.eventSpecification.name)}`
        : `spec ✗ ${(spec.errors || []).map((e) => text(e.rule)).join(', ')}`
  const details = [
    good.incomplete ? 'incomplete' : '',
    specNote,
    what,
    contexts.length === 0
      ? ''
      : `${contexts.length} ${contexts.length === 1 ? 'entity' : 'entities'}`,
  ]
    .filter((part) => part !== '')
    .join(' · ')
  const properties = propertiesOf(event)
  const key = `good|${text(event.event_id)}|${text(event.collector_tstamp)}|${good.incomplete === true}`
  return entry(
    'good',
    good,
    key,
    Date.parse(event.collector_tstamp) || Date.now(),
    good.eventType || event.event,
    good.schema,
    event.app_id,
    details,
    // Searched as text too: every value of the event's entities and properties.
    [...contexts, ...properties.map(([, value]) => value)],
    good.eventType === 'unstruct' ? [text(good.schema), ...contexts] : contexts,
    properties,
  )
}

/** The failure messages of a bad row, as short texts. */
function failureMessages(row) {
  const failure = row && row.data && row.data.failure
  if (!failure || typeof failure !== 'object') return []
  const listed = Array.isArray(failure.messages)
    ? failure.messages
    : failure.message !== undefined
      ? [failure.message]
      : failure.expectation !== undefined
        ? [failure.expectation]
        : []
  return listed.map((message) => {
    const reports =
      message && message.error && Array.isArray(message.error.dataReports)
        ? message.error.dataReports
        : null
    if (reports !== null)
      return `${text(message.schemaKey)}: ${reports.map((report) => text(report.message)).join(', ')}`
    return text(message)
  })
}

/** The schemas a bad row's messages name (not the atomic fields', which no repository serves). */
function failedSchemas(row) {
  const messages =
    row && row.data && row.data.failure && Array.isArray(row.data.failure.messages)
      ? row.data.failure.messages
      : []
  return messages
    .map((message) => text(message && message.schemaKey))
    .filter((uri) => uri !== '' && !uri.startsWith('iglu:com.snowplowanalytics.snowplow/atomic/'))
}

export function badEntry(bad) {
  const errors = Array.isArray(bad.errors) ? bad.errors.map(text) : []
  let row = null
  try {
    row = JSON.parse(errors[1] || 'null')
  } catch {
    row = null
  }
  const kind = (row && /badrows\/([^/]+)\//.exec(text(row.schema))) || [null, 'bad row']
  const context =
    (bad.collectorPayload && bad.collectorPayload.context) ||
    (bad.rawEvent && bad.rawEvent.context) ||
    {}
  const parameters = (bad.rawEvent && bad.rawEvent.parameters) || {}
  const messages = failureMessages(row)
  const details = messages.length === 0 ? errors[0] || '' : messages.join('; ')
  const key = `bad|${text(context.timestamp)}|${errors.join('\n')}`
  return entry(
    'bad',
    bad,
    key,
    Date.parse(context.timestamp) || Date.now(),
    kind[1],
    parameters.e === undefined ? '' : `e=${text(parameters.e)}`,
    parameters.aid,
    details,
    [errors[0] || ''],
    failedSchemas(row),
  )
}

export function matches(item, wanted) {
  if (wanted === '') return true
  const search = propertySearch(wanted)
  if (search !== null)
    return item.properties.some(
      ([path, value]) =>
        (path === search.path || path.endsWith(`.${search.path}`)) && value === search.value,
    )
  return item.haystack.includes(wanted)
}
