/**
 * Items seen recently, newest first, at most `capacity` of them, found by a key that `matches`
 * compares with each (a linear scan: meant for the few values a tracker sends again and again, such
 * as its event schemas or its requests' paths, so that many stored events hold one copy). An item
 * not found is only kept anew, never wrong.
 */
export class RecentItems<T, K> {
  private readonly items: T[] = []

  constructor(
    private readonly capacity: number,
    private readonly matches: (item: T, key: K) => boolean,
  ) {}

  /** The newest kept item that matches `key`. */
  find(key: K): T | undefined {
    for (const item of this.items) if (this.matches(item, key)) return item
    return undefined
  }

  /** Keeps `item` as the newest, forgetting the oldest past the capacity; gives it back. */
  keep<I extends T>(item: I): I {
    this.items.unshift(item)
    if (this.items.length > this.capacity) this.items.pop()
    return item
  }
}

/**
 * Lists seen recently: `shared(list)` gives the kept list holding the same items in the same order
 * (compared with `===`), or keeps this one (frozen). Many stored events can then hold one list,
 * where a tracker sends the same one again and again (its parameter names, its header lines).
 */
export class RecentLists<T> {
  private readonly lists: RecentItems<readonly T[], readonly T[]>

  constructor(capacity: number) {
    this.lists = new RecentItems(capacity, sameItems)
  }

  shared(list: T[]): readonly T[] {
    return this.lists.find(list) ?? this.lists.keep(Object.freeze(list))
  }
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false
  for (let at = 0; at < a.length; at++) if (a[at] !== b[at]) return false
  return true
}
