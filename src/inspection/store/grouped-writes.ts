/**
 * Writes to a database of one connection (embedded PGlite), where each write waits for the one
 * before it: those that arrive while one runs are written together once it ends, in one
 * transaction, in the order they arrived. Under load that turns ten small transactions (each a
 * commit synced to disk, and in PGlite's own thread a round trip between threads a statement)
 * into one. A group that fails is written again one write at a time, so that a write fails only
 * for its own sake, and a group holds at most `mostEvents` events (one write may hold more).
 */
export class GroupedWrites<B> {
  private readonly waiting: { batch: B; done: () => void; failed: (error: unknown) => void }[] = []
  private writing = false

  constructor(
    private readonly writeTogether: (batches: readonly B[]) => Promise<void>,
    private readonly eventsOf: (batch: B) => number,
    private readonly mostEvents: number,
  ) {}

  /** Writes `batch`, with any that arrive meanwhile; settles once it is written, or failed. */
  write(batch: B): Promise<void> {
    return new Promise<void>((done, failed) => {
      this.waiting.push({ batch, done, failed })
      if (!this.writing) void this.writeWaiting()
    })
  }

  private async writeWaiting(): Promise<void> {
    this.writing = true
    try {
      while (this.waiting.length > 0) {
        let events = this.eventsOf(this.waiting[0]!.batch)
        let taken = 1
        while (taken < this.waiting.length) {
          const more = this.eventsOf(this.waiting[taken]!.batch)
          if (events + more > this.mostEvents) break
          events += more
          taken++
        }
        const group = this.waiting.splice(0, taken)
        try {
          await this.writeTogether(group.map((member) => member.batch))
          for (const member of group) member.done()
        } catch (error) {
          if (group.length === 1) group[0]!.failed(error)
          else
            for (const member of group)
              await this.writeTogether([member.batch]).then(member.done, member.failed)
        }
      }
    } finally {
      this.writing = false
    }
  }
}
