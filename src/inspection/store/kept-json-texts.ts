import { CommaLedJson } from '../api/json-array.js'

/** Where kept texts are written, one after another: a text longer than a quarter of it gets its own. */
const BLOCK_BYTES = 1024 * 1024

/**
 * A block of shared memory: a page of texts read from it crosses to another thread (the inspection
 * thread's answers) as views, not copies. A block's written bytes are never written again (a new
 * block is begun instead), so a view stays true for as long as it is held.
 */
const newBlock = (): Buffer => Buffer.from(new SharedArrayBuffer(BLOCK_BYTES))
/** An answer asked twice in a row that comes out in more runs than this is laid out again. */
const RUNS_LAID_OUT_AGAIN = 8

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
 * runs of memory instead of a buffer per event (see `runs`). An answer whose texts lie apart (they
 * were first asked for by another answer) and that is asked for twice in a row (polled) has its
 * texts copied one after another, once, so that it too goes out as a few runs from then on; answers
 * asked in turn are left as they are, so that they do not copy each other's texts back and forth.
 *
 * Bounded: past `limits`, every kept text is forgotten at once and keeping starts again in a new
 * block (an answer being sent keeps the blocks it reads until it is written). The blocks are shared
 * memory (see `newBlock`).
 */
export class KeptJsonTexts {
  /** The slot of each kept item's text, by the item's key. */
  private readonly slots = new Map<number, number>()
  /** Per slot: the memory its text lies in, and where in it (`,` included). */
  private readonly memories: Buffer[] = []
  private readonly starts: Int32Array
  private readonly ends: Int32Array
  private heldBytes = 0
  private block: Buffer = Buffer.alloc(0)
  private used = 0
  /** What the last answer of many runs asked for (its keys' count, ends and sum), or ''. */
  private lastScattered = ''

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
    const runs = this.gather(keys, write)
    if (runs.length <= RUNS_LAID_OUT_AGAIN) return runs
    let sum = 0
    for (const key of keys) sum += key
    const asked = `${keys.length}:${keys[0]}:${keys[keys.length - 1]}:${sum}`
    if (asked !== this.lastScattered) {
      this.lastScattered = asked
      return runs
    }
    this.lastScattered = ''
    return this.layOutAgain(keys) ? this.gather(keys, write) : runs
  }

  private gather(keys: readonly number[], write: (key: number) => string): CommaLedJson[] {
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

  /**
   * Copies the kept texts of `keys` one after another (a text with memory of its own stays there),
   * when all are kept and the copies fit the bounds; false when it did not.
   */
  private layOutAgain(keys: readonly number[]): boolean {
    let bytes = 0
    for (const key of keys) {
      const slot = this.slots.get(key)
      if (slot === undefined) return false
      bytes += (this.ends[slot] ?? 0) - (this.starts[slot] ?? 0)
    }
    if (this.heldBytes + bytes > this.limits.bytes) return false
    for (const key of keys) {
      const slot = this.slots.get(key) as number
      const memory = this.memories[slot] as Buffer
      const start = this.starts[slot] ?? 0
      const size = (this.ends[slot] ?? 0) - start
      if (size > BLOCK_BYTES / 4) continue
      if (this.used + size > this.block.length) {
        this.block = newBlock()
        this.used = 0
      }
      memory.copy(this.block, this.used, start, start + size)
      this.place(slot, this.block, this.used, this.used + size)
      this.used += size
      this.heldBytes += size
    }
    return true
  }

  /** Forgets every kept text. */
  clear(): void {
    this.lastScattered = ''
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
        this.block = newBlock()
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
