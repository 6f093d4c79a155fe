import {
  closedObject,
  coreSchema,
  COUNT,
  SNOWPLOW,
  text,
  textOrNull,
  type CoreSchema,
} from './self-describing.js'

/**
 * The entities trackers and code generators attach: the page view id, the client session, link
 * clicks, click-tracking redirects, and the event specification snowtype names on every event it
 * builds.
 */

const UUID_TEXT = '^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$'
/** A user id: a lower-case UUID or 16 hex digits. */
const USER_ID = '^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$|^[0-9a-f]{16}$'
const STORAGE = ['SQLITE', 'COOKIE_1', 'COOKIE_3', 'LOCAL_STORAGE', 'FLASH_LSO']
const uuidOrNull: CoreSchema = { type: ['null', 'string'], format: 'uuid' }

/** client_session by version: 1-0-1 bounds the user id and adds the first event id, 1-0-2 the event index and first timestamp. */
function clientSession(version: '1-0-0' | '1-0-1' | '1-0-2') {
  const later = version !== '1-0-0'
  const properties: Record<string, CoreSchema> = {
    userId: text({ pattern: USER_ID, ...(later ? { maxLength: 36 } : {}) }),
    sessionId: text({ format: 'uuid' }),
    sessionIndex: { type: 'integer', ...COUNT },
    ...(version === '1-0-2' ? { eventIndex: { type: ['null', 'integer'], ...COUNT } } : {}),
    previousSessionId: uuidOrNull,
    // 1-0-0 names the mechanisms without a type.
    storageMechanism: later ? text({ enum: STORAGE }) : { enum: STORAGE },
    ...(later ? { firstEventId: uuidOrNull } : {}),
    ...(version === '1-0-2'
      ? { firstEventTimestamp: { type: ['null', 'string'], format: 'date-time' } }
      : {}),
  }
  const required =
    version === '1-0-2'
      ? ['userId', 'sessionId', 'sessionIndex', 'storageMechanism']
      : ['userId', 'sessionId', 'sessionIndex', 'previousSessionId', 'storageMechanism']
  return coreSchema(
    SNOWPLOW,
    'client_session',
    version,
    'The session of the tracker that sent the event',
    closedObject(properties, required),
  )
}

function linkClick(version: '1-0-0' | '1-0-1') {
  return coreSchema(
    SNOWPLOW,
    'link_click',
    version,
    'A click on a link',
    closedObject(
      {
        elementId: text(),
        elementClasses: { type: 'array', items: text() },
        elementTarget: text(),
        targetUrl: text({ minLength: 1 }),
        ...(version === '1-0-1' ? { elementContent: text() } : {}),
      },
      ['targetUrl'],
    ),
  )
}

/** event_specification: 1-0-1 adds a name, 1-0-2 nullable names and the data product, 1-0-3 its domain, 1-0-4 the version. */
function eventSpecification(revision: 0 | 1 | 2 | 3 | 4) {
  const name = (nullable: boolean) =>
    (nullable ? textOrNull : text)({ minLength: 1, maxLength: 256 })
  const properties: Record<string, CoreSchema> = {
    id: text({ minLength: 1, maxLength: 254 }),
    ...(revision >= 1 ? { name: name(revision >= 2) } : {}),
    ...(revision >= 2 ? { data_product_id: name(true), data_product_name: name(true) } : {}),
    ...(revision >= 3 ? { data_product_domain: name(true) } : {}),
    ...(revision >= 4 ? { version: { type: ['integer', 'null'], ...COUNT } } : {}),
  }
  return coreSchema(
    SNOWPLOW,
    'event_specification',
    `1-0-${revision}`,
    'The event specification an event was built from',
    closedObject(properties, ['id']),
  )
}

export const ENTITIES: readonly (readonly [string, CoreSchema])[] = [
  coreSchema(
    SNOWPLOW,
    'web_page',
    '1-0-0',
    'The page view an event belongs to',
    closedObject({ id: text({ pattern: UUID_TEXT }) }, ['id']),
  ),
  clientSession('1-0-0'),
  clientSession('1-0-1'),
  clientSession('1-0-2'),
  linkClick('1-0-0'),
  linkClick('1-0-1'),
  coreSchema(
    SNOWPLOW,
    'uri_redirect',
    '1-0-0',
    'Where a click-tracking redirect sent the browser',
    closedObject({ uri: text({ format: 'uri', maxLength: 8192 }) }, ['uri']),
  ),
  eventSpecification(0),
  eventSpecification(1),
  eventSpecification(2),
  eventSpecification(3),
  eventSpecification(4),
]
