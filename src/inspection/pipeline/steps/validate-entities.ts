import { keepsWrittenNumbers } from '../../../iglu/index.js'
import { isIgluUri } from '../../../shared/index.js'
import { parseJson } from '../adapt-payload.js'
import type { EnrichedEvent, SelfDescribing } from '../canonical-event.js'
import { noteDocumentText, type IgluValidation } from '../iglu-validation.js'
import { recurringValue } from '../recurring-values.js'
import { MAX_BAD_ROW_BYTES } from '../bad-rows.js'
import { withOrigin } from '../failure-entities.js'
import type { RepeatedContexts } from './repeated-contexts.js'

const CONTEXTS = /^iglu:com\.snowplowanalytics\.snowplow\/contexts\/jsonschema\/1-0-\d+$/
const UNSTRUCT = /^iglu:com\.snowplowanalytics\.snowplow\/unstruct_event\/jsonschema\/1-0-\d+$/

const isSelfDescribing = (v: unknown): v is SelfDescribing =>
  v !== null &&
  typeof v === 'object' &&
  !Array.isArray(v) &&
  typeof (v as Record<string, unknown>).schema === 'string' &&
  'data' in v

/** Base64 as the reference decodes it: both alphabets, padding optional, UTF-8. */
const fromBase64 = (text: string) => Buffer.from(text, 'base64').toString('utf8')

/** Why a value is not a self-describing JSON, as the reference's NotIglu codes say. */
function notIglu(json: unknown): { json: unknown; error: string } | null {
  if (!isSelfDescribing(json)) return { json, error: 'INVALID_DATA_PAYLOAD' }
  if (!isIgluUri(json.schema)) return { json, error: 'INVALID_IGLUURI' }
  return null
}

/** A value now, or later when a schema had to be looked up first. */
type Eventually<T> = T | Promise<T>

/**
 * `next` of the value: at once when it is there, else once it is. The entities of an event whose
 * schemas are all known are checked without waiting, so without a turn of the microtask queue each.
 */
const andThen = <T, U>(value: Eventually<T>, next: (value: T) => Eventually<U>): Eventually<U> =>
  value instanceof Promise ? value.then(next) : next(value)

/** `step` for each item in order, each after the one before it is done, until `enough` says so. */
function inTurn<T>(
  items: readonly T[],
  step: (item: T) => Eventually<void>,
  enough: () => boolean,
  from = 0,
): Eventually<void> {
  for (let i = from; i < items.length && !enough(); i++) {
    const pending = step(items[i] as T)
    if (pending instanceof Promise) return pending.then(() => inTurn(items, step, enough, i + 1))
  }
}

/** The lengths of the strings in a failure message: less than its JSON's, never more. */
function textLength(value: unknown, depth = 0): number {
  if (typeof value === 'string') return value.length
  if (value === null || typeof value !== 'object' || depth > 8) return 0
  let length = 0
  for (const item of Array.isArray(value) ? value : Object.values(value))
    length += textLength(item, depth + 1)
  return length
}

/**
 * A check of whether `messages` take more text than a bad row may hold, each message measured once
 * as it comes: an event whose failures already pass it is a size_violation whatever its other
 * entities hold, so they are not checked (thousands of entities breaking a wide schema made tens
 * of megabytes of messages).
 */
function pastBadRowSize(messages: readonly unknown[]): () => boolean {
  let counted = 0
  let length = 0
  return () => {
    for (; counted < messages.length; counted++) length += textLength(messages[counted])
    return length > MAX_BAD_ROW_BYTES
  }
}

/** The verdict at once when the schema is known, else once a repository was asked. */
const verdictOf = (iglu: IgluValidation, schemaUri: string, data: unknown) =>
  iglu.validateNow(schemaUri, data) ?? iglu.validate(schemaUri, data)

/** Parses and checks one wrapper (contexts or unstruct_event); messages for what fails. */
function wrapper(
  text: string,
  field: 'contexts' | 'unstruct',
  criterion: RegExp,
  criterionText: string,
  iglu: IgluValidation,
  messages: unknown[],
): Eventually<SelfDescribing | null> {
  const parsed = parseJson(text, true)
  if (!parsed.ok) {
    messages.push({ field, value: text.slice(0, 1000), error: parsed.error })
    return null
  }
  const problem = notIglu(parsed.value)
  if (problem !== null || !isSelfDescribing(parsed.value)) {
    messages.push(withOrigin(problem, field, parsed.value))
    return null
  }
  const envelope = parsed.value
  noteDocumentText(envelope.data, text.length)
  if (!criterion.test(envelope.schema)) {
    messages.push(
      withOrigin(
        { schemaKey: envelope.schema, schemaCriterion: criterionText },
        field,
        envelope.data,
      ),
    )
    return null
  }
  return andThen(verdictOf(iglu, envelope.schema, envelope.data), (verdict) => {
    if (verdict.kind === 'valid') return envelope
    messages.push(
      withOrigin({ schemaKey: envelope.schema, error: verdict.error }, field, envelope.data),
    )
    return null
  })
}

/** One entity or event (in `field`): self-describing, and valid against its schema from the resolver. */
function entity(
  value: unknown,
  field: 'contexts' | 'unstruct',
  iglu: IgluValidation,
  messages: unknown[],
  sourceLength: number,
): Eventually<SelfDescribing | null> {
  const problem = notIglu(value)
  if (problem !== null || !isSelfDescribing(value)) {
    messages.push(withOrigin(problem, field, value))
    return null
  }
  noteDocumentText(value.data, sourceLength)
  return andThen(verdictOf(iglu, value.schema, value.data), (verdict) => {
    if (verdict.kind === 'invalid') {
      messages.push(
        withOrigin({ schemaKey: value.schema, error: verdict.error }, field, value.data),
      )
      return null
    }
    // The parsed entity itself is kept when it has no other keys (the usual case): one object less
    // per entity. Its schema URI recurs in other events: the kept copy replaces the parsed one.
    const schema = recurringValue(value.schema)
    if (Object.keys(value).length !== 2) return { schema, data: value.data }
    ;(value as { schema: string }).schema = schema
    return value
  })
}

/**
 * Contexts (`co`, or base64 `cx`) and the self-describing event (`ue_pr`, or base64 `ue_px`), each
 * validated against its schema. Each context is checked on its own: valid ones are kept. When both
 * forms are sent, the plain one (`co`, `ue_pr`) is used. The messages come at once when every
 * schema was known, else once the missing ones were looked up. With `repeated` (one payload's), a
 * contexts text that an earlier event of the payload carried, all valid, gives that event's entities.
 */
export function validateEntities(
  event: EnrichedEvent,
  parameters: ReadonlyMap<string, string | null>,
  iglu: IgluValidation,
  repeated?: RepeatedContexts,
): Eventually<unknown[]> {
  const messages: unknown[] = []
  const co = parameters.get('co') ?? null
  const cx = parameters.get('cx') ?? null
  const contextsText = co ?? (cx === null ? null : fromBase64(cx))
  const earlier = contextsText === null ? undefined : repeated?.find(contextsText)
  if (earlier !== undefined) {
    for (const valid of earlier.entities) event.contexts.push(valid)
    if (earlier.keepWrittenNumbers) event.entitiesKeepWrittenNumbers = true
  }
  const contexts =
    contextsText === null || earlier !== undefined
      ? undefined
      : andThen(
          wrapper(
            contextsText,
            'contexts',
            CONTEXTS,
            'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-*',
            iglu,
            messages,
          ),
          (envelope) => {
            if (envelope === null || !Array.isArray(envelope.data)) return
            const keepWrittenNumbers = keepsWrittenNumbers(envelope)
            if (keepWrittenNumbers) event.entitiesKeepWrittenNumbers = true
            const checked = inTurn(
              envelope.data,
              (item) =>
                andThen(entity(item, 'contexts', iglu, messages, contextsText.length), (valid) => {
                  if (valid !== null) event.contexts.push(valid)
                }),
              pastBadRowSize(messages),
            )
            if (repeated === undefined) return checked
            return andThen(checked, () => {
              if (messages.length === 0)
                repeated.keep(contextsText, { entities: [...event.contexts], keepWrittenNumbers })
            })
          },
        )
  const unstruct = andThen(contexts, () => {
    const uePr = parameters.get('ue_pr') ?? null
    const uePx = parameters.get('ue_px') ?? null
    const unstructText = uePr ?? (uePx === null ? null : fromBase64(uePx))
    if (unstructText === null) return
    return andThen(
      wrapper(
        unstructText,
        'unstruct',
        UNSTRUCT,
        'iglu:com.snowplowanalytics.snowplow/unstruct_event/jsonschema/1-0-*',
        iglu,
        messages,
      ),
      (envelope) => {
        if (envelope === null) return
        if (keepsWrittenNumbers(envelope)) event.entitiesKeepWrittenNumbers = true
        return andThen(
          entity(envelope.data, 'unstruct', iglu, messages, unstructText.length),
          (valid) => {
            event.unstructEvent = valid
          },
        )
      },
    )
  })
  return andThen(unstruct, () => messages)
}

/**
 * Phase 3: the entities the enrichments derived, each validated against its schema like the
 * tracker's. Invalid ones are dropped from the event (an incomplete event keeps only valid
 * entities); the messages say which and why.
 */
export async function validateDerivedContexts(
  event: EnrichedEvent,
  iglu: IgluValidation,
): Promise<unknown[]> {
  const messages: unknown[] = []
  if (event.derivedContexts.length === 0) return messages
  const valid: SelfDescribing[] = []
  for (const derived of event.derivedContexts) {
    const verdict = await iglu.validate(derived.schema, derived.data)
    if (verdict.kind === 'valid') valid.push(derived)
    else
      messages.push(
        withOrigin(
          { schemaKey: derived.schema, error: verdict.error },
          'derived_contexts',
          derived.data,
        ),
      )
  }
  event.derivedContexts = valid
  return messages
}

/**
 * Phase 3: the tracker's entities as a JavaScript enrichment replaced them (`setContexts`,
 * `setUnstruct_event`), validated again as Enrich (6.4+) does: an invalid one is dropped from the
 * event, and the messages say which and why.
 */
export async function validateReplacedEntities(
  event: EnrichedEvent,
  replaced: { readonly contexts: boolean; readonly unstructEvent: boolean },
  iglu: IgluValidation,
): Promise<unknown[]> {
  const messages: unknown[] = []
  if (replaced.contexts) {
    const valid: SelfDescribing[] = []
    for (const context of event.contexts) {
      const verdict = await iglu.validate(context.schema, context.data)
      if (verdict.kind === 'valid') valid.push(context)
      else
        messages.push(
          withOrigin({ schemaKey: context.schema, error: verdict.error }, 'contexts', context.data),
        )
    }
    event.contexts = valid
  }
  const unstruct = event.unstructEvent
  if (replaced.unstructEvent && unstruct !== null) {
    const verdict = await iglu.validate(unstruct.schema, unstruct.data)
    if (verdict.kind !== 'valid') {
      messages.push(
        withOrigin({ schemaKey: unstruct.schema, error: verdict.error }, 'unstruct', unstruct.data),
      )
      event.unstructEvent = null
    }
  }
  return messages
}
