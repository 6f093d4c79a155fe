// The few helpers used across bounded contexts; nothing here knows HTTP, the database or the domain.
export { isJsonObject } from './json-object.js'
export { isUuid } from './uuid.js'
