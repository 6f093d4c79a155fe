/**
 * The last lines PostgreSQL wrote to its log (stderr) in an embedded cluster. PGlite prints them
 * nowhere unless debugging, and a cluster that does not start fails with Emscripten's `Aborted()`,
 * which says nothing of why: PostgreSQL's own PANIC or FATAL line does ("could not read file
 * "global/pg_control": read 100 of 296"). Kept bounded: a running cluster logs every failed
 * statement there too.
 */
export class PostgresLog {
  /** Lines kept, the most recent last. */
  static readonly LINES = 16
  /** Characters kept of one line. */
  static readonly LINE_CHARS = 500
  readonly #lines: string[] = []

  /** PGlite's `onStderr`: keeps the line, and lets PGlite go on as usual with it. */
  readonly take = (text: string): boolean => {
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue
      // A copy: a slice of a long line (a failed statement's text) would keep all of it.
      this.#lines.push(Buffer.from(line.slice(0, PostgresLog.LINE_CHARS)).toString())
      if (this.#lines.length > PostgresLog.LINES) this.#lines.shift()
    }
    return false
  }

  /**
   * What PostgreSQL said of the failure: its PANIC and FATAL lines among the kept ones (without
   * their time and process prefix), else its last line; null when it wrote nothing.
   */
  lastWords(): string | null {
    const lines = this.#lines.map(withoutPrefix)
    const fatal = lines.filter((line) => /^(PANIC|FATAL):/.test(line))
    const said = fatal.length > 0 ? fatal : lines.slice(-1)
    return said.length === 0 ? null : said.join('; ')
  }

  /** `error`, what PostgreSQL said of it first (when it said anything), its own message after. */
  explain(error: unknown): unknown {
    const words = this.lastWords()
    if (words === null || !(error instanceof Error)) return error
    return new Error(`${words} (${error.message.replace(/\.?\s*$/, '')})`, { cause: error })
  }
}

/** A log line without PostgreSQL's prefix (`2026-12-01 05:01:09.497 UTC [42] `) and doubled spaces. */
function withoutPrefix(line: string): string {
  return line
    .replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \S+ \[\d+\] /, '')
    .replace(/:\s{2,}/, ': ')
    .trim()
}
