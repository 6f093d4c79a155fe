/**
 * The first `size` items of a stream in `compare` order, ties kept in arrival order (as a stable
 * sort of the whole stream would have them), holding at most `size` items at once: a page of a
 * sorted query needs only the items up to its end, however many match.
 */
export class LeadingItems<T> {
  /** A binary max-heap by rank: the worst kept item on top, the first to give way. */
  private readonly heap: { readonly item: T; readonly order: number }[] = []
  private arrivals = 0

  constructor(
    private readonly size: number,
    private readonly compare: (a: T, b: T) => number,
  ) {}

  /** How many items were offered. */
  get offered(): number {
    return this.arrivals
  }

  /** Offers an item; returns the item no longer kept because of it (itself, or the one it replaced). */
  offer(item: T): T | undefined {
    const entry = { item, order: this.arrivals++ }
    const heap = this.heap
    if (heap.length < this.size) {
      heap.push(entry)
      this.siftUp(heap.length - 1)
      return undefined
    }
    const worst = heap[0]
    if (worst === undefined || this.rank(entry, worst) >= 0) return item
    heap[0] = entry
    this.siftDown(0)
    return worst.item
  }

  /** The kept items, in order. */
  sorted(): T[] {
    return [...this.heap].sort((a, b) => this.rank(a, b)).map((entry) => entry.item)
  }

  private rank(a: { item: T; order: number }, b: { item: T; order: number }): number {
    return this.compare(a.item, b.item) || a.order - b.order
  }

  private siftUp(index: number): void {
    const heap = this.heap
    while (index > 0) {
      const parent = (index - 1) >> 1
      if (this.rank(heap[index]!, heap[parent]!) <= 0) return
      ;[heap[index], heap[parent]] = [heap[parent]!, heap[index]!]
      index = parent
    }
  }

  private siftDown(index: number): void {
    const heap = this.heap
    for (;;) {
      const left = 2 * index + 1
      const right = left + 1
      let largest = index
      if (left < heap.length && this.rank(heap[left]!, heap[largest]!) > 0) largest = left
      if (right < heap.length && this.rank(heap[right]!, heap[largest]!) > 0) largest = right
      if (largest === index) return
      ;[heap[index], heap[largest]] = [heap[largest]!, heap[index]!]
      index = largest
    }
  }
}
