import { setImmediate as nextTurn } from 'node:timers/promises'
import { adaptPayload, MAX_EVENTS_PER_PAYLOAD, type AdapterOutcome } from './adapt-payload.js'
import { badEvent, badRow, payloadFailure, type BadEvent } from './bad-rows.js'
import {
  badRowRawEvent,
  collectorPayloadJson,
  type CollectorPayload,
  type RawEvent,
} from './collector-payload.js'
import {
  DEFAULT_MAX_PAYLOAD_BYTES,
  enrichEvent,
  type EventOutcome,
  type GoodEvent,
  type PipelineDeps,
} from './enrich-event.js'
import { RepeatedContexts } from './steps/repeated-contexts.js'

/** What one collector request produced, in the order the events were sent. */
export interface PayloadOutcome {
  readonly good: GoodEvent[]
  readonly bad: BadEvent[]
  /** Failed events kept best-effort, with failure entities. */
  readonly incomplete: GoodEvent[]
  /**
   * For each incomplete event, how many good events came before it in the payload: where it goes
   * among them (absent: after them all).
   */
  readonly incompleteBefore?: number[]
}

/**
 * One event through the pipeline; an unexpected throw (a bug, never a property of the input) becomes
 * an enrichment failure of that event instead of failing the request and its other events.
 */
function enrichSafely(
  raw: RawEvent,
  deps: PipelineDeps,
  repeated: RepeatedContexts | undefined,
): EventOutcome | Promise<EventOutcome> {
  try {
    const outcome = enrichEvent(raw, deps, repeated)
    return outcome instanceof Promise
      ? outcome.catch((error: unknown) => unexpectedFailure(error, raw, deps))
      : outcome
  } catch (error) {
    return unexpectedFailure(error, raw, deps)
  }
}

function unexpectedFailure(error: unknown, raw: RawEvent, deps: PipelineDeps): EventOutcome {
  const message = {
    error: `unexpected error in the pipeline: ${error instanceof Error ? error.message : String(error)}`,
  }
  const failure = {
    timestamp: new Date(deps.now()).toISOString(),
    messages: [{ enrichment: null, message }],
  }
  const row = badRow('enrichment_failures', deps.processor, failure, {
    enriched: null,
    raw: badRowRawEvent(raw),
  })
  return { kind: 'bad', bad: badEvent('enrichment', row, null, raw), incomplete: null }
}

/**
 * A collector payload through the adapter, then each of its events through the pipeline, in order.
 * The outcome comes at once unless a step has to wait (see enrichEvent): then a promise of it.
 */
export function processPayload(
  payload: CollectorPayload,
  deps: PipelineDeps,
): PayloadOutcome | Promise<PayloadOutcome> {
  const adapted = adaptPayload(payload, deps.iglu)
  return adapted instanceof Promise
    ? adapted.then((outcome) => afterAdapter(payload, deps, outcome))
    : afterAdapter(payload, deps, adapted)
}

function afterAdapter(
  payload: CollectorPayload,
  deps: PipelineDeps,
  adapted: AdapterOutcome,
): PayloadOutcome | Promise<PayloadOutcome> {
  if (adapted.kind === 'too-many-events') {
    const expectation = `a collector payload may carry at most ${MAX_EVENTS_PER_PAYLOAD} events; this one carries ${adapted.count}`
    return sizeViolation(
      deps,
      payload.body ?? '',
      deps.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES,
      expectation,
    )
  }
  if (adapted.kind === 'failure') {
    const row = payloadFailure(
      adapted.badRowKind,
      deps.processor,
      payload,
      adapted.messages,
      deps.now(),
    )
    return { good: [], bad: [badEvent('adapter', row, payload, null)], incomplete: [] }
  }
  // A batch's events often carry the same entities: each text is parsed and validated once.
  const repeated = adapted.events.length > 1 ? new RepeatedContexts() : undefined
  return eventsFrom(payload, deps, adapted.events, repeated, 0, {
    good: [],
    bad: [],
    incomplete: [],
    incompleteBefore: [],
  })
}

/**
 * Events processed in one go before the pipeline lets other work run (the next turn of the event
 * loop): a payload of 1 000 events held the loop for a third of a second. Trackers send far fewer
 * in one payload, which then costs no pause.
 */
export const EVENTS_PER_TURN = 100

/** The events from `from` on into `outcome`, one after the other; waits only once one has to. */
function eventsFrom(
  payload: CollectorPayload,
  deps: PipelineDeps,
  events: readonly RawEvent[],
  repeated: RepeatedContexts | undefined,
  from: number,
  outcome: PayloadOutcome,
): PayloadOutcome | Promise<PayloadOutcome> {
  for (let at = from; at < events.length; at++) {
    // The rest once waiting requests and timers have run.
    if (at - from === EVENTS_PER_TURN)
      return nextTurn().then(() => eventsFrom(payload, deps, events, repeated, at, outcome))
    const result = enrichSafely(events[at] as RawEvent, deps, repeated)
    if (result instanceof Promise)
      return result.then((settled) => {
        keepResult(payload, outcome, settled)
        return eventsFrom(payload, deps, events, repeated, at + 1, outcome)
      })
    keepResult(payload, outcome, result)
  }
  return outcome
}

/**
 * The longest body every bad event of a payload carries, as Micro's do. Past it, the payload's
 * first bad event carries it whole and the others with `body: null`: a 1 MB payload of 1 000 failing
 * events made a gigabyte of bad rows, in a database, in answers and in live streams.
 */
export const SHARED_BODY_CHARS = 64 * 1024

/** The payload as a bad event of it carries it: its body only once, when it is large. */
function payloadOfBadEvent(payload: CollectorPayload, outcome: PayloadOutcome) {
  const json = collectorPayloadJson(payload)
  const large = payload.body !== null && payload.body.length > SHARED_BODY_CHARS
  return large && outcome.bad.length > 0 ? { ...json, body: null } : json
}

function keepResult(payload: CollectorPayload, outcome: PayloadOutcome, result: EventOutcome) {
  if (result.kind === 'good') outcome.good.push(result.good)
  else if (result.kind === 'bad') {
    outcome.bad.push({ ...result.bad, collectorPayload: payloadOfBadEvent(payload, outcome) })
    if (result.incomplete !== null) {
      outcome.incomplete.push(result.incomplete)
      outcome.incompleteBefore?.push(outcome.good.length)
    }
  }
}

/**
 * A request the loader cannot read (a bad path, an unparsable query string, a nuid that is not a
 * UUID): a collector_payload_format_violation, with neither payload nor raw event.
 */
export function formatViolation(
  deps: Pick<PipelineDeps, 'processor' | 'now'>,
  rawRequest: string,
  message: { payloadField: string; value: string | null; expectation: string } | { error: string },
): PayloadOutcome {
  const failure = { timestamp: new Date(deps.now()).toISOString(), loader: 'http', message }
  const row = badRow(
    'collector_payload_format_violation',
    deps.processor,
    failure,
    Buffer.from(rawRequest, 'utf8').toString('base64'),
  )
  return { good: [], bad: [badEvent('format', row, null, null)], incomplete: [] }
}

/**
 * A payload larger than the collector accepts (in bytes, or in events): a size_violation bad row
 * carrying the start of the payload (a tenth of the byte limit), as the reference collector records it.
 */
export function sizeViolation(
  deps: Pick<PipelineDeps, 'processor' | 'now'>,
  body: string,
  limitBytes: number,
  expectation = `the collector payload must be at most ${limitBytes} bytes`,
): PayloadOutcome {
  const actualSizeBytes = Buffer.byteLength(body, 'utf8')
  const failure = {
    timestamp: new Date(deps.now()).toISOString(),
    maximumAllowedSizeBytes: limitBytes,
    actualSizeBytes,
    expectation,
  }
  const row = badRow(
    'size_violation',
    deps.processor,
    failure,
    body.slice(0, Math.floor(limitBytes / 10)),
  )
  return { good: [], bad: [badEvent('format', row, null, null)], incomplete: [] }
}
