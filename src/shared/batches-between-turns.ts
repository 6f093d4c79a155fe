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
