/**
 * JSON documents as text, their members kept exactly as written (`9223372036854775807`, `0.00`,
 * `1.0`), which `JSON.parse` would round or shorten: used for what the registry stores and serves.
 */

/**
 * The top-level members of an object's text, each value exactly as written there (whitespace and
 * numbers included), in the order a parser gives them: a repeated key keeps its first place and
 * its last value. A linear scan with no parse, so cheap on the event loop whatever the document;
 * the text is known to be valid JSON (it was parsed when it was received). Null for a non-object.
 */
export function objectMembers(text: string): Map<string, string> | null {
  let at = skipSpace(text, 0)
  if (text[at] !== '{') return null
  at = skipSpace(text, at + 1)
  const members = new Map<string, string>()
  while (at < text.length && text[at] !== '}') {
    const keyEnd = endOfString(text, at)
    const name = JSON.parse(text.slice(at, keyEnd)) as string
    at = skipSpace(text, keyEnd)
    at = skipSpace(text, at + 1) // the colon
    const valueEnd = endOfValue(text, at)
    members.set(name, text.slice(at, valueEnd))
    at = skipSpace(text, valueEnd)
    if (text[at] === ',') at = skipSpace(text, at + 1)
  }
  return members
}

/** An object's text from members whose values are already JSON text. */
export function objectText(members: Iterable<readonly [string, string]>): string {
  const parts: string[] = []
  for (const [name, value] of members) parts.push(`${JSON.stringify(name)}:${value}`)
  return `{${parts.join(',')}}`
}

/** The member `key` of a JSON object's text exactly as written; undefined when there is none. */
export function memberRawText(text: string, key: string): string | undefined {
  return objectMembers(text)?.get(key)
}
const isSpace = (c: string | undefined) => c === ' ' || c === '\n' || c === '\r' || c === '\t'

function skipSpace(text: string, at: number): number {
  while (isSpace(text[at])) at++
  return at
}

/** The index just past the string literal that starts at `at`. */
function endOfString(text: string, at: number): number {
  let i = at + 1
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1
  return i + 1
}

/** The index just past the value that starts at `at`. */
function endOfValue(text: string, at: number): number {
  const first = text[at]
  if (first === '"') return endOfString(text, at)
  if (first !== '{' && first !== '[') {
    let i = at
    while (i < text.length && !/[\s,}\]]/.test(text[i]!)) i++
    return i
  }
  let depth = 0
  let i = at
  while (i < text.length) {
    const c = text[i]
    if (c === '"') {
      i = endOfString(text, i)
      continue
    }
    if (c === '{' || c === '[') depth++
    else if (c === '}' || c === ']') {
      depth--
      if (depth === 0) return i + 1
    }
    i++
  }
  return i
}
