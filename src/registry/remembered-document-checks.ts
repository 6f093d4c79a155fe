import { createHash } from 'node:crypto'
import { LRUCache } from 'lru-cache'
import type { SchemaDocumentCheck } from './schema-validation.js'

/** Checks a schema document (in the worker pool): its report, or why there is none. */
export type DocumentCheck = (data: unknown, bodyText?: string) => Promise<SchemaDocumentCheck>

export interface RememberedChecksLimits {
  /** Reports kept at most. */
  readonly entries: number
  /** Characters of kept reports (their texts and messages) at most, as UTF-16 bytes. */
  readonly bytes: number
}

/** About 1 000 reports of schemas of a few kilobytes, and never more than 32 MB of them. */
export const REMEMBERED_CHECKS: RememberedChecksLimits = { entries: 1000, bytes: 32 * 1024 * 1024 }

/** The memory a kept report holds: its text and its messages, two bytes a character. */
function weightOf(check: SchemaDocumentCheck & { kind: 'report' }): number {
  const { errors, warnings, info } = check.report
  let chars = check.text.length + check.contentHash.length
  for (const message of [...errors, ...warnings, ...info]) chars += message.length
  return 2 * chars + 256
}

/**
 * `check`, remembering its reports by the request's text: a team's CI validates the same schemas
 * again at every run, and a report is a pure function of the document (the draft-04 meta-schema,
 * Iglu's rules, the linters, whether it compiles), which costs a worker process milliseconds to
 * compile. Only reports are kept: a refusal for lack of time or of room in the pool is asked again.
 * Keyed by the SHA-256 of the text as sent (or of the parsed document's JSON when there is none),
 * so that two requests share a report only when they sent the same bytes.
 */
export function rememberedDocumentChecks(
  check: DocumentCheck,
  limits: RememberedChecksLimits = REMEMBERED_CHECKS,
): DocumentCheck {
  const reports = new LRUCache<string, SchemaDocumentCheck & { kind: 'report' }>({
    max: limits.entries,
    maxSize: limits.bytes,
    sizeCalculation: weightOf,
  })
  return async (data, bodyText) => {
    // The text is hashed as it is (up to the API's 1 MiB body), not copied into a key first.
    const key = createHash('sha256')
      .update(bodyText === undefined ? 'parsed:' : 'text:')
      .update(bodyText ?? JSON.stringify(data) ?? 'undefined', 'utf8')
      .digest('base64')
    const kept = reports.get(key)
    if (kept !== undefined) return kept
    const checked = await check(data, bodyText)
    // One heavier than the whole bound is not kept (the cache refuses it).
    if (checked.kind === 'report' && weightOf(checked) <= limits.bytes) reports.set(key, checked)
    return checked
  }
}
