/** A JSON object: not null, not an array. The one check every context uses on parsed JSON. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
