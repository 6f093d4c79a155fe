/**
 * JSON text laid out over lines (two spaces an indent), but only when that changes nothing except
 * white space: a text whose numbers would not read back as written (`1.0`, `1e2`, digits beyond a
 * double) is returned as it is. Text already on several lines is kept as it is.
 */
export function laidOut(text: string): string {
  if (text.trimEnd().includes('\n')) return text
  try {
    const value: unknown = JSON.parse(text)
    return JSON.stringify(value) === text.trim() ? `${JSON.stringify(value, null, 2)}\n` : text
  } catch {
    return text
  }
}
