import { setImmediate as otherWork } from 'node:timers/promises'

/**
 * `work` over `items`, `size` at a time (a batch's calls run together, so a worker pool can share
 * them), with a turn of the event loop between two batches, in the items' order. Calls answered
 * without I/O (a cache, or PGlite, which settles a statement without a turn) would otherwise run
 * one after another in a single turn, however many items there are.
 */
export async function inBatchesBetweenTurns<T, R>(
  items: readonly T[],
  size: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = []
  for (let start = 0; start < items.length; start += size) {
    if (start > 0) await otherWork()
    results.push(...(await Promise.all(items.slice(start, start + size).map(work))))
  }
  return results
}

/** How long `mapBetweenTurns` maps before it lets other work run, in ms. */
const MAP_SLICE_MS = 4

/**
 * `map` over `items` (synchronous, cheap each), in slices of about MAP_SLICE_MS with a turn of
 * the event loop between two slices: thousands of items mapped at once would hold the loop for
 * their sum, and several such maps at once, each in its own slices, share the loop's turns.
 */
export async function mapBetweenTurns<T, R>(
  items: readonly T[],
  map: (item: T) => R,
): Promise<R[]> {
  const results: R[] = []
  let sliceEnd = performance.now() + MAP_SLICE_MS
  for (const item of items) {
    results.push(map(item))
    if (performance.now() >= sliceEnd) {
      await otherWork()
      sliceEnd = performance.now() + MAP_SLICE_MS
    }
  }
  return results
}
