/**
 * A data structure's custom data (string → string) as the metadata form edits it: `key=value`
 * lines when every entry reads back the same from one (the common case), else a JSON object, so
 * that no key or value is ever changed by being shown and saved again.
 */

const fitsALine = ([key, value]: [string, string]) =>
  key !== '' &&
  key === key.trim() &&
  value === value.trim() &&
  !key.includes('=') &&
  !/[\r\n]/.test(key) &&
  !/[\r\n]/.test(value)

export function customDataText(data: unknown): string {
  const entries = Object.entries((data ?? {}) as Record<string, string>)
  if (!entries.every(fitsALine)) return JSON.stringify(Object.fromEntries(entries), null, 2)
  return entries.map(([key, value]) => `${key}=${value}`).join('\n')
}

/**
 * The custom data a text gives: a JSON object of strings (when it starts with `{`), or `key=value`
 * lines, spaces around each trimmed; what is neither is named in the error.
 */
export function parseCustomData(text: string): Record<string, string> {
  if (text.trim().startsWith('{')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (error) {
      throw new Error(`Custom data is not a JSON object: ${(error as Error).message}`, {
        cause: error,
      })
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error('Custom data: write a JSON object of strings')
    for (const [key, value] of Object.entries(parsed))
      if (typeof value !== 'string')
        throw new Error(`Custom data, ${JSON.stringify(key)}: each value must be a string`)
    return parsed as Record<string, string>
  }
  const data: Record<string, string> = {}
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return
    const at = line.indexOf('=')
    if (at <= 0 || line.slice(0, at).trim() === '')
      throw new Error(
        `Custom data, line ${index + 1}: write it as key=value (or give a JSON object)`,
      )
    data[line.slice(0, at).trim()] = line.slice(at + 1).trim()
  })
  return data
}
