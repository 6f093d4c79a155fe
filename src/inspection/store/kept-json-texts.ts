import { CommaLedJson } from '../api/json-array.js'

/** Where kept texts are written, one after another: a text longer than a quarter of it gets its own. */
const BLOCK_BYTES = 1024 * 1024

export interface KeptJsonTextsLimits {
  /** Texts kept at most. */
  readonly texts: number
  /** Bytes of texts kept at most. */
  readonly bytes: number
}

/**
 * The JSON texts of stored events once written, each after its comma (as an array holds every item
 * but its first), for the answers that ask for them again: tests poll the newest events again and
 * again, and writing an event (~5 kB) costs far more than finding it. Stored events never change,
 * so a kept text stays true.
 *
 * The texts are written one after another into blocks of memory, in the order they are first asked
 * for, which is the order of the answer that asked: when the same events are asked for again (a test
 * polling), the texts of consecutive items lie next to each other, and the answer is sent as a few
 * runs of memory instead of a buffer per event (see `runs`).
 *
 * Bounded: past `limits`, every kept text is forgotten at once and keeping starts again in a new
 * block (an answer being sent keeps the blocks it reads until it is written).
 */
export class KeptJsonTexts {
  /** The slot of each kept item's text, by the item's key. */
  private readonly slots = new Map<number, number>()
  /** Per slot: the memory its text lies in, and where in it (`,` included). */
  private readonly memories: Buffer[] = []
  private readonly starts: Int32Array
  private readonly ends: Int32Array
  private heldBytes = 0
  private block = Buffer.alloc(0)
  private used = 0

  constructor(private readonly limits: KeptJsonTextsLimits) {
    this.starts = new Int32Array(Math.max(1, limits.texts))
    this.ends = new Int32Array(Math.max(1, limits.texts))
  }

  /**
   * The texts of the items `keys` name, in their order, as runs of memory: the texts of consecutive
   * items that lie one after another make one run, so that an answer asked again is a few runs (its
   * items' objects are not read: the kept texts' places are numbers in arrays of their own).
   * `write` gives the text of an item not kept yet, which is kept from then on.
   */
  runs(keys: readonly number[], write: (key: number) => string): CommaLedJson[] {
    const runs: CommaLedJson[] = []
    // The run being gathered: its memory and where in it (a forgetting in between starts a new block).
    let memory: Buffer | undefined
    let start = 0
    let end = 0
    for (const key of keys) {
      const slot = this.slots.get(key) ?? this.keep(key, write(key))
      const at = this.memories[slot]
      const from = this.starts[slot] ?? 0
      if (at === memory && from === end) {
        end = this.ends[slot] ?? end
        continue
      }
      if (memory !== undefined) runs.push(new CommaLedJson(memory.subarray(start, end)))
      memory = at
      start = from
      end = this.ends[slot] ?? from
    }
    if (memory !== undefined) runs.push(new CommaLedJson(memory.subarray(start, end)))
    return runs
  }

  /** Forgets every kept text. */
  clear(): void {
    this.slots.clear()
    this.memories.length = 0
    this.heldBytes = 0
    this.block = Buffer.alloc(0)
    this.used = 0
  }

  /** Keeps the text of the item `key` names: `,` and the text, after the texts placed before it when it fits. */
  private keep(key: number, text: string): number {
    const size = Buffer.byteLength(text, 'utf8') + 1
    if (this.slots.size >= this.limits.texts || this.heldBytes + size > this.limits.bytes)
      this.clear()
    const slot = this.slots.size
    if (size > BLOCK_BYTES / 4) {
      const own = CommaLedJson.of(text).bytes
      this.place(slot, own, 0, own.length)
    } else {
      if (this.used + size > this.block.length) {
        this.block = Buffer.allocUnsafeSlow(BLOCK_BYTES)
        this.used = 0
      }
      const start = this.used
      this.block[start] = 0x2c // ','
      this.block.write(text, start + 1, 'utf8')
      this.used = start + size
      this.place(slot, this.block, start, this.used)
    }
    this.slots.set(key, slot)
    this.heldBytes += size
    return slot
  }

  private place(slot: number, memory: Buffer, start: number, end: number): void {
    this.memories[slot] = memory
    this.starts[slot] = start
    this.ends[slot] = end
  }
}
