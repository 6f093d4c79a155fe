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
 * runs of memory instead of a buffer per event (see `jsonArrayBytes`).
 *
 * Bounded: past `limits`, every kept text is forgotten at once and keeping starts again in a new
 * block (an answer being sent keeps the blocks it reads until it is written).
 */
export class KeptJsonTexts<Item extends object> {
  private readonly texts = new Map<Item, CommaLedJson>()
  private heldBytes = 0
  private block = Buffer.alloc(0)
  private used = 0

  constructor(
    private readonly write: (item: Item) => string,
    private readonly limits: KeptJsonTextsLimits,
  ) {}

  /** The item's text, written now if it is not kept. */
  get(item: Item): CommaLedJson {
    const kept = this.texts.get(item)
    if (kept !== undefined) return kept
    const text = this.write(item)
    const size = Buffer.byteLength(text, 'utf8') + 1
    if (this.texts.size >= this.limits.texts || this.heldBytes + size > this.limits.bytes)
      this.clear()
    const written = this.place(text, size)
    this.texts.set(item, written)
    this.heldBytes += size
    return written
  }

  /** Forgets every kept text. */
  clear(): void {
    this.texts.clear()
    this.heldBytes = 0
    this.block = Buffer.alloc(0)
    this.used = 0
  }

  /** `,` and the text, after the texts placed before it when it fits. */
  private place(text: string, size: number): CommaLedJson {
    if (size > BLOCK_BYTES / 4) return CommaLedJson.of(text)
    if (this.used + size > this.block.length) {
      this.block = Buffer.allocUnsafeSlow(BLOCK_BYTES)
      this.used = 0
    }
    const start = this.used
    this.block[start] = 0x2c // ','
    this.block.write(text, start + 1, 'utf8')
    this.used = start + size
    return new CommaLedJson(this.block.subarray(start, this.used))
  }
}
