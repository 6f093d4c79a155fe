/**
 * A record without its null fields. Go clients such as snowplow-cli send unset optional fields as
 * null; written records read them as absent.
 */
export function withoutNulls<T extends object>(record: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== null)) as {
    [K in keyof T]: Exclude<T[K], null>
  }
}
