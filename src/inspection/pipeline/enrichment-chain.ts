import type { EnrichedEvent } from './canonical-event.js'
import type { RawEvent } from './collector-payload.js'
import type {
  EnrichmentFailure,
  Enrichments,
  JavascriptEnrichment,
} from './enrichments/enrichments.js'
import { applyScriptAnswer, scriptCall } from './enrichments/javascript-script.js'
import type { SpecificationCheck } from './steps/check-event-specification.js'
import { deriveTimestamp } from './steps/derive-timestamp.js'
import {
  enrichPageUrl,
  enrichRefererUrl,
  extractCrossDomain,
  parsePageQuery,
  type EnrichmentMessage,
} from './steps/enrich-urls.js'
import { setSchemaFields } from './steps/set-schema-fields.js'

/** What the enrichment steps of one event share: the event, its raw form, and what they found. */
export interface EnrichmentWork {
  readonly event: EnrichedEvent
  readonly raw: RawEvent
  /** Failures of the default steps (their messages have no enrichment name). */
  readonly messages: EnrichmentMessage[]
  /** Failures of the optional enrichments, each naming its enrichment. */
  readonly failures: EnrichmentFailure[]
  /** The page URL's query, as the page-query step parsed it for the steps after it. */
  query: ReadonlyMap<string, string | null>
  /** The raw page query, as the page-URL step found it. */
  pageQuery: string | null
  /** Set by a script's `event.drop()`: the event is neither good nor bad, and no step runs after. */
  dropped: boolean
  /** The tracker's entities a script replaced: they are validated again after the chain. */
  readonly replaced: { contexts: boolean; unstructEvent: boolean }
  /** The event's own fields and entities were valid (phase 1): the steps that judge the event need it. */
  readonly inputValid: boolean
  /** The event against its specification, when one applies and the event-specification step ran. */
  specification: SpecificationCheck | null
}

/**
 * One step of the enrichment chain. Every step has this shape, default and optional alike: an
 * optional enrichment's step does nothing unless its configuration switched it on.
 */
export interface Step {
  /** For people: what the step does. */
  readonly name: string
  /** Synchronous but for the steps that wait for something (a script's sandbox). */
  run(work: EnrichmentWork, enrichments: Enrichments): void | Promise<void>
}

/** Each script in turn, in the order configured; a drop ends the chain. */
async function runScripts(
  work: EnrichmentWork,
  scripts: readonly JavascriptEnrichment[],
): Promise<void> {
  for (const enrichment of scripts) {
    const answer = await enrichment.run(
      scriptCall(enrichment.script, work.event, work.raw.context.headers),
    )
    const outcome = applyScriptAnswer(work.event, answer, enrichment)
    if (outcome === 'dropped') {
      work.dropped = true
      return
    }
    if (outcome !== null) work.failures.push(outcome)
    else if (answer.kind === 'returned') {
      if (answer.contexts !== undefined) work.replaced.contexts = true
      if (answer.unstructEvent !== undefined) work.replaced.unstructEvent = true
    }
  }
}

/** The enrichment chain, in the reference order: each step may read what earlier ones wrote. */
export const ENRICHMENT_STEPS: readonly Step[] = [
  {
    name: 'collector version present',
    run: ({ event, messages }) => {
      if (typeof event.fields.v_collector !== 'string' || event.fields.v_collector === '')
        messages.push({ field: 'v_collector', value: null, expectation: 'should be set' })
    },
  },
  {
    name: 'page URL',
    run: (work) => {
      const page = enrichPageUrl(work.event, work.raw.context.refererUri, work.messages)
      work.pageQuery = page?.query ?? null
    },
  },
  { name: 'derived timestamp', run: ({ event }) => deriveTimestamp(event) },
  { name: 'IAB spiders and robots', run: ({ event, failures }, e) => e.iab?.(event, failures) },
  { name: 'ua parser', run: ({ event, failures }, e) => e.uaParser?.(event, failures) },
  {
    name: 'currency conversion',
    run: ({ event, failures }, e) => e.currencyConversion?.(event, failures),
  },
  { name: 'referer URL', run: ({ event, messages }) => enrichRefererUrl(event, messages) },
  { name: 'referer parser', run: ({ event }, e) => e.refererParser?.(event) },
  {
    // The page query feeds campaign attribution and cross-domain `_sp`.
    name: 'page query',
    run: (work) => {
      work.query = parsePageQuery(work.pageQuery, work.messages)
    },
  },
  {
    name: 'campaign attribution',
    run: ({ event, query }, e) => e.campaignAttribution?.(event, query),
  },
  {
    name: 'cross-domain navigation',
    run: ({ event, query, messages }) => extractCrossDomain(event, query, messages),
  },
  {
    name: 'event fingerprint',
    run: ({ event, raw }, e) => e.eventFingerprint?.(event, raw.parameters),
  },
  {
    name: 'cookie extractor',
    run: ({ event, raw }, e) => e.cookieExtractor?.(event, raw.context.headers),
  },
  {
    name: 'HTTP header extractor',
    run: ({ event, raw }, e) => e.headerExtractor?.(event, raw.context.headers),
  },
  { name: 'YAUAA', run: ({ event }, e) => e.yauaa?.(event) },
  { name: 'schema fields', run: ({ event, messages }) => setSchemaFields(event, messages) },
  { name: 'IP lookups', run: ({ event }, e) => e.ipLookups?.(event) },
  { name: 'ASN lookups', run: ({ event }, e) => e.asnLookups?.(event) },
  { name: 'bot detection', run: ({ event }, e) => e.botDetection?.(event) },
  {
    name: 'JavaScript',
    run: (work, e) => (e.javascript === undefined ? undefined : runScripts(work, e.javascript)),
  },
  {
    name: 'SQL query',
    run: ({ event, failures }, e) => e.sqlQuery?.(event, failures),
  },
  {
    name: 'API request',
    run: ({ event, failures }, e) => e.apiRequest?.(event, failures),
  },
  // After everything that reads the address (IP lookups above all), which sees the real one.
  { name: 'IP anonymisation', run: ({ event }, e) => e.anonymizeIp?.(event) },
  {
    // After every enrichment that reads or derives values (it hashes the derived entities too).
    name: 'PII pseudonymization',
    run: ({ event, raw, failures }, e) =>
      e.piiPseudonymization?.(event, raw.context.headers, failures),
  },
  {
    // Last: it judges the event as the other steps left it. An event whose own fields or entities
    // are invalid is a bad row already, and is not judged.
    name: 'event specification',
    run: (work, e) => {
      if (e.eventSpecification === undefined || !work.inputValid) return undefined
      const found = e.eventSpecification(work.event)
      if (!(found instanceof Promise)) return recordSpecification(work, found)
      return found.then((check) => recordSpecification(work, check))
    },
  },
]

function recordSpecification(work: EnrichmentWork, check: SpecificationCheck | null): void {
  work.specification = check
  if (check !== null) work.event.derivedContexts.push(check.entity)
}

/** What the chain leaves of an event: its failures, the entities a script replaced and its specification's verdict; or `dropped` by a script. */
export type ChainOutcome =
  | {
      readonly failures: EnrichmentFailure[]
      readonly replaced: { readonly contexts: boolean; readonly unstructEvent: boolean }
      readonly specification: SpecificationCheck | null
    }
  | 'dropped'

/**
 * Runs the chain over one event. Returns the failures (the default steps' messages, then the
 * optional enrichments') with the entities scripts replaced; or `dropped`. Synchronous unless a step waits (a script): then a promise.
 */
export function runEnrichments(
  event: EnrichedEvent,
  raw: RawEvent,
  enrichments: Enrichments,
  inputValid: boolean,
): ChainOutcome | Promise<ChainOutcome> {
  const work: EnrichmentWork = {
    event,
    raw,
    messages: [],
    failures: [],
    query: NO_QUERY,
    pageQuery: null,
    dropped: false,
    replaced: { contexts: false, unstructEvent: false },
    inputValid,
    specification: null,
  }
  for (let at = 0; at < ENRICHMENT_STEPS.length; at++) {
    const waiting = ENRICHMENT_STEPS[at]!.run(work, enrichments)
    if (waiting instanceof Promise) return finishAfter(waiting, work, enrichments, at + 1)
  }
  return outcomeOf(work)
}

async function finishAfter(
  waiting: Promise<void>,
  work: EnrichmentWork,
  enrichments: Enrichments,
  from: number,
): Promise<ChainOutcome> {
  await waiting
  for (let at = from; at < ENRICHMENT_STEPS.length && !work.dropped; at++)
    await ENRICHMENT_STEPS[at]!.run(work, enrichments)
  return outcomeOf(work)
}

function outcomeOf(work: EnrichmentWork): ChainOutcome {
  if (work.dropped) return 'dropped'
  return {
    failures: [
      ...work.messages.map((message) => ({ enrichment: null, message })),
      ...work.failures,
    ],
    replaced: work.replaced,
    specification: work.specification,
  }
}

const NO_QUERY: ReadonlyMap<string, string | null> = new Map()
