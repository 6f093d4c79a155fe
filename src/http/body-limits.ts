/**
 * Request body limits, in bytes, for each class of route. Past a limit the APIs answer 413 with a
 * JSON message; the collector turns a payload past its own limit into a size_violation bad row.
 */
export const BODY_LIMITS = {
  /** Registry, scenarios, data products, keys and tokens: one JSON document (a schema of thousands of properties fits). */
  api: 1024 * 1024,
  /** The inspection API (/local, /micro): small filter and query documents. */
  inspection: 64 * 1024,
  /** What the collector reads of a request; a bigger body is refused with 413 before it is read. */
  collectorRead: 10 * 1024 * 1024,
  /** The collector payload limit of the reference collector: bigger payloads become size_violation bad rows. */
  collectorPayload: 1_000_000,
} as const
