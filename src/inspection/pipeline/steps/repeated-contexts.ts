import type { SelfDescribing } from '../canonical-event.js'

/** Distinct contexts texts one payload remembers; past it, the oldest is forgotten. */
const REMEMBERED_TEXTS = 8

/** The valid entities one contexts text gave. */
export interface ContextsOutcome {
  readonly entities: readonly SelfDescribing[]
  /** Whether they hold a number a double rounds, kept as written (see `iglu/exact-numbers.ts`). */
  readonly keepWrittenNumbers: boolean
}

/**
 * The contexts texts (`co`, or `cx` decoded) of a payload's earlier events whose every entity was
 * valid, with the entities they gave. A tracker's batch often carries the same text in several
 * events (a page's view, pings and clicks share its `web_page` and global entities): the later
 * ones take the entities already parsed and validated, the same objects, instead of parsing and
 * validating the same text again. Kept for one payload only, so that a verdict never outlives
 * the schemas it was given by. Entities are never changed once validated (an enrichment that
 * rewrites one, PII pseudonymization, replaces it in its own event), so events may share them.
 */
export class RepeatedContexts {
  private readonly texts: string[] = []
  private readonly outcomes: ContextsOutcome[] = []
  private next = 0

  /** The outcome of an earlier event with this very text, if it was wholly valid. */
  find(text: string): ContextsOutcome | undefined {
    for (let at = 0; at < this.texts.length; at++)
      if (this.texts[at] === text) return this.outcomes[at]
    return undefined
  }

  /** Remembers a text whose entities were all valid. */
  keep(text: string, outcome: ContextsOutcome): void {
    this.texts[this.next] = text
    this.outcomes[this.next] = outcome
    this.next = (this.next + 1) % REMEMBERED_TEXTS
  }
}
