/**
 * Items in arrival order, numbered, keeping only the newest `capacity`, and only as many of the
 * newest as fit in `maxWeight` by the weights given with them (the newest item is always kept).
 * Eviction moves a head index; the arrays are compacted once half of them is dead, so adding is
 * amortised O(1).
 */
export class BoundedLog<T> {
  private items: (T | undefined)[] = []
  private weights: number[] = []
  private head = 0
  /** Sequence number of items[0]. */
  private offset = 0
  private heldWeight = 0

  constructor(
    private readonly capacity: number,
    private readonly maxWeight: number = Infinity,
  ) {}

  get size(): number {
    return this.items.length - this.head
  }
  get firstSeq(): number {
    return this.offset + this.head
  }
  get nextSeq(): number {
    return this.offset + this.items.length
  }
  /** The weight of the items kept. */
  get weight(): number {
    return this.heldWeight
  }

  /** Adds an item; returns the items evicted to make room. */
  add(item: T, weight = 0): T[] {
    this.items.push(item)
    this.weights.push(weight)
    this.heldWeight += weight
    const evicted: T[] = []
    while (this.size > this.capacity || (this.heldWeight > this.maxWeight && this.size > 1)) {
      const old = this.items[this.head]
      this.heldWeight -= this.weights[this.head] ?? 0
      this.items[this.head] = undefined
      this.head++
      if (old !== undefined) evicted.push(old)
    }
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head)
      this.weights = this.weights.slice(this.head)
      this.offset += this.head
      this.head = 0
    }
    return evicted
  }

  at(seq: number): T | undefined {
    return seq < this.firstSeq ? undefined : this.items[seq - this.offset]
  }

  /** The weight an item was added with (0 for one no longer kept). */
  weightAt(seq: number): number {
    return seq < this.firstSeq ? 0 : (this.weights[seq - this.offset] ?? 0)
  }

  clear(): void {
    this.offset = this.nextSeq
    this.items = []
    this.weights = []
    this.head = 0
    this.heldWeight = 0
  }
}
