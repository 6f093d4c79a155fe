import { BoundedMemo } from '../../shared/index.js'

/**
 * Text values that recur across a tracker's events (its app id, platform, page URL, user agent,
 * header lines, entity schema URIs), each kept once for every stored event that holds it: a stored
 * event then holds fewer strings of its own, which makes it smaller and cheaper for the garbage
 * collector to move. Bounded: when full, the kept values are forgotten and sharing starts again.
 */
const recurring = new BoundedMemo<string, string>(4096, (value) => value)

/** Longer values are kept as they are: hashing them would cost more than sharing saves. */
const LONGEST_SHARED = 256

/** The one kept copy of `value` (equal to it), or `value` itself when too long to share. */
export function recurringValue(value: string): string {
  return value.length > LONGEST_SHARED ? value : recurring.get(value)
}

/**
 * Tracker parameters whose values differ in (almost) every event (ids, device timestamps) or are
 * entity payloads: sharing them would only churn the kept values.
 */
const ONE_OFF_PARAMETERS = new Set([
  'eid',
  'dtm',
  'stm',
  'ttm',
  'tid',
  'cx',
  'co',
  'ue_px',
  'ue_pr',
  'nuid',
])

/** A parameter's value as a stored event should hold it. */
export function parameterValue(name: string, value: string): string {
  return ONE_OFF_PARAMETERS.has(name) ? value : recurringValue(value)
}
