// The few helpers used across bounded contexts; nothing here knows HTTP, the database or the domain.
export { isJsonObject } from './json-object.js'
export { escapePointerToken } from './json-pointer.js'
export { isUuid } from './uuid.js'
