import type { CollectorPayload } from '../pipeline/collector-payload.js'
import type { PipelineDeps } from '../pipeline/enrich-event.js'
import {
  formatViolation,
  processPayload,
  sizeViolation,
  type PayloadOutcome,
} from '../pipeline/process-payload.js'
import { readCollectorRequest, type CollectorRequest } from './collector-request.js'

/** What the collector answers need to know after an event was stored. */
export interface Collected {
  readonly nuid: string | null
  readonly anonymous: boolean
  /** Whether the request carried the nuid cookie (an anonymous request then expires it). */
  readonly hadNuidCookie: boolean
}

/** The answer to a request whose events could not be read: no network user to remember. */
const NO_USER: Collected = Object.freeze({ nuid: null, anonymous: false, hadNuidCookie: false })

/**
 * What a collector request leaves to be processed once its answer is known: its payload, or what
 * its bad row is made of. Plain data, so that another thread can process it.
 */
export type CollectorWork =
  | { readonly kind: 'payload'; readonly payload: CollectorPayload }
  | {
      readonly kind: 'unreadable'
      /** The request as its bad row names it: `METHOD /vendor/version?query`. */
      readonly request: string
      readonly message: { payloadField: string; value: string | null; expectation: string }
    }
  | { readonly kind: 'too-large'; readonly body: string; readonly maxPayloadBytes: number }

/**
 * A collector request read for its answer (the network user it names or is given) and the work it
 * leaves: a body over `maxPayloadBytes` or a request the loader cannot read leave a bad row.
 */
export function readForAnswer(
  request: CollectorRequest,
  maxPayloadBytes: number,
): { readonly collected: Collected; readonly work: CollectorWork } {
  if (request.body !== null && Buffer.byteLength(request.body, 'utf8') > maxPayloadBytes)
    return { collected: NO_USER, work: { kind: 'too-large', body: request.body, maxPayloadBytes } }
  const reading = readCollectorRequest(request)
  if (reading.kind === 'unreadable')
    return {
      collected: NO_USER,
      work: {
        kind: 'unreadable',
        request: `${request.method} /${request.api.vendor}/${request.api.version}?${request.rawQuery}`,
        message: reading.message,
      },
    }
  return {
    collected: {
      nuid: reading.nuid,
      anonymous: reading.anonymous,
      hadNuidCookie: reading.hadNuidCookie,
    },
    work: { kind: 'payload', payload: reading.payload },
  }
}

/** The events a collector request's work leaves: through the pipeline, or its one bad row. */
export function workOutcome(
  work: CollectorWork,
  pipeline: PipelineDeps,
): PayloadOutcome | Promise<PayloadOutcome> {
  switch (work.kind) {
    case 'payload':
      return processPayload(work.payload, pipeline)
    case 'unreadable':
      return formatViolation(pipeline, work.request, work.message)
    case 'too-large':
      return sizeViolation(pipeline, work.body, work.maxPayloadBytes)
  }
}
