/** Sequence numbers of the events having one value of an indexed attribute, oldest first. */
export class Postings {
  seqs: number[] = []
  start = 0

  /** How many live numbers it holds (once trimmed). */
  get size(): number {
    return this.seqs.length - this.start
  }

  /** Drops the numbers of evicted events; true when nothing live is left. */
  trim(firstLive: number): boolean {
    while (this.start < this.seqs.length && (this.seqs[this.start] ?? 0) < firstLive) this.start++
    if (this.start > 1024 && this.start * 2 > this.seqs.length) {
      this.seqs = this.seqs.slice(this.start)
      this.start = 0
    }
    return this.start >= this.seqs.length
  }
}

/**
 * The newest numbers that every one of `lists` holds (each trimmed, none empty) and that `accept`
 * takes, newest first, at most `limit`. The shortest list is walked from its end and each of its
 * numbers looked up in the others, searching down from the last one found there, so that a
 * filter of several indexed values (a schema and its event type, say) reads no stored event to
 * answer: the numbers lie together in arrays of their own, where the events lie all over the heap.
 */
export function newestInEvery(
  lists: readonly Postings[],
  limit: number,
  accept?: (seq: number) => boolean,
): number[] {
  const out: number[] = []
  let shortest = lists[0]
  if (shortest === undefined) return out
  for (const list of lists) if (list.size < shortest.size) shortest = list
  const others = lists.filter((list) => list !== shortest)
  // Per other list: the highest index still worth searching (numbers only fall as the walk goes).
  const highs = others.map((list) => list.seqs.length - 1)
  walk: for (let i = shortest.seqs.length - 1; i >= shortest.start && out.length < limit; i--) {
    const seq = shortest.seqs[i] ?? -1
    for (let k = 0; k < others.length; k++) {
      const other = others[k] as Postings
      const seqs = other.seqs
      let high = highs[k] ?? -1
      // Gallop down from the last place found (lists of related values fall nearly in step), then
      // search what the gallop bracketed: every index above `high` holds a number above `seq`.
      let low = high
      for (let step = 1; low >= other.start && (seqs[low] ?? -1) > seq; step *= 2) {
        high = low - 1
        low -= step
      }
      if (low < other.start) low = other.start
      while (low <= high) {
        const middle = (low + high) >>> 1
        if ((seqs[middle] ?? Infinity) <= seq) low = middle + 1
        else high = middle - 1
      }
      highs[k] = high
      // Nothing in this list is as old as `seq`: no older number can be in every list.
      if (high < other.start) return out
      if (other.seqs[high] !== seq) continue walk
    }
    if (accept === undefined || accept(seq)) out.push(seq)
  }
  return out
}
