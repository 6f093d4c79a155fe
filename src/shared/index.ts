// The few helpers used across bounded contexts; nothing here knows HTTP, the database or the domain.
export { BackgroundTasks } from './background-tasks.js'
export { BoundedMemo } from './bounded-memo.js'
export { cutText } from './cut-text.js'
export { DomainError, type DomainErrorKind } from './domain-error.js'
export { ExpiringCache } from './expiring-cache.js'
export {
  igluUriParts,
  isIgluUri,
  looseIgluUriParts,
  NAME_PATTERN,
  VENDOR_PATTERN,
  type IgluUriParts,
} from './iglu-uri.js'
export { isJsonObject } from './json-object.js'
export { RecentItems, RecentLists } from './recent-items.js'
export { escapePointerToken } from './json-pointer.js'
export { lineOfPointer, pointerLines } from './json-pointer-line.js'
export { isUuid, newUuid } from './uuid.js'
export { firstAtOrAfter } from './sorted-search.js'
export { inBatchesBetweenTurns, mapBetweenTurns } from './batches-between-turns.js'
export { OneAtATimeByKey } from './one-at-a-time.js'
export { firstUnstorable, MAX_INPUT_DEPTH, type UnstorableValue } from './storable-json.js'
