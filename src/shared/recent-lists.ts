/**
 * Lists seen recently, newest first, at most `capacity` of them: `shared(list)` gives the kept list
 * holding the same items in the same order (compared with `===`), or keeps this one (frozen). Many
 * stored events can then hold one list, where a tracker sends the same one again and again (its
 * parameter names, its header lines); a list not found is only kept, never wrong.
 */
export class RecentLists<T> {
  private readonly lists: (readonly T[])[] = []

  constructor(private readonly capacity: number) {}

  shared(list: T[]): readonly T[] {
    for (const kept of this.lists) if (sameItems(kept, list)) return kept
    const kept = Object.freeze(list)
    this.lists.unshift(kept)
    if (this.lists.length > this.capacity) this.lists.pop()
    return kept
  }
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false
  for (let at = 0; at < a.length; at++) if (a[at] !== b[at]) return false
  return true
}
