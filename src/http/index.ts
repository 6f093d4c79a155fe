export { BODY_LIMITS } from './body-limits.js'
export { registerEnvelopeErrorHandling } from './envelope-error-handler.js'
export { ErrorBodyRef } from './error-body.schema.js'
export { STATUS_BY_DOMAIN_KIND } from './error-status.js'
export { createHttpServer, MAX_HEADER_BYTES, SHUTDOWN_GRACE_MS } from './http-server.js'
export { createSecureListener, type SecureListener } from './secure-listener.js'
export { jsonTextOf, readUntypedBodiesAsJson } from './json-body-parser.js'
export { rejectUnstorableInput } from './storable-input-guard.js'
export { BooleanQuery, queryFlag } from './query-flags.js'
export { DeferredCompilers } from './deferred-compilers.js'
export { flushLogs } from './batched-log-writer.js'
export {
  jsonArrayBody,
  jsonBody,
  jsonTextsBetweenTurns,
  sendJson,
  serializerOf,
  type JsonPart,
} from './json-array-body.js'
