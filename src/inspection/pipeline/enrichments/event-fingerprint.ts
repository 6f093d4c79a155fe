import { createHash } from 'node:crypto'
import type { EnrichedEvent } from '../canonical-event.js'

const ALGORITHMS = {
  MD5: 'md5',
  SHA1: 'sha1',
  SHA256: 'sha256',
  SHA384: 'sha384',
  SHA512: 'sha512',
} as const

/** `event_fingerprint_config` parameters. */
export interface EventFingerprintConfig {
  readonly excludeParameters: readonly string[]
  readonly hashAlgorithm: keyof typeof ALGORITHMS
}

/** Parameters with a value, not excluded, sorted by name, as `name␟value␟…`, hashed to lowercase hex. */
export function createEventFingerprintStep(config: EventFingerprintConfig) {
  const excluded = new Set(config.excludeParameters)
  return function eventFingerprintStep(
    event: EnrichedEvent,
    parameters: ReadonlyMap<string, string | null>,
  ): void {
    const kept = [...parameters]
      .filter(([name, value]) => value !== null && !excluded.has(name))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    const text = kept.map(([name, value]) => `${name}\u001f${value ?? ''}\u001f`).join('')
    event.fields.event_fingerprint = createHash(ALGORITHMS[config.hashAlgorithm])
      .update(text, 'utf8')
      .digest('hex')
  }
}
