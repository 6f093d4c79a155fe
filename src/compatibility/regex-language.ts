import { RegExpParser } from '@eslint-community/regexpp'
import {
  DFA,
  getIntersectionWords,
  isDisjointWith,
  JS,
  NFA,
  transform,
  Transformers,
  type CharSet,
  type ReadonlyWord,
} from 'refa'

/**
 * Regular languages of JSON Schema strings, through refa's automata. A `pattern` is unanchored, as
 * Ajv runs it (`new RegExp(pattern, 'u')` and `test`): each top-level alternative without `^` or `$`
 * gets `[^]*` on that side. Lengths count code points, as the `u` flag and Ajv's maxLength do.
 */
export class UnsupportedRegex extends Error {}

const regexpParser = new RegExpParser({ ecmaVersion: 2024 })

/** The pattern rewritten to match whole strings. */
function anchoredSource(pattern: string): string {
  const ast = regexpParser.parsePattern(pattern, 0, pattern.length, { unicode: true })
  return ast.alternatives
    .map((alternative) => {
      const { elements } = alternative
      const first = elements[0]
      const last = elements[elements.length - 1]
      const startsAnchored = first?.type === 'Assertion' && first.kind === 'start'
      const endsAnchored =
        last?.type === 'Assertion' &&
        last.kind === 'end' &&
        elements.length > (startsAnchored ? 1 : 0)
      const from = startsAnchored && first !== undefined ? first.end : alternative.start
      const to = endsAnchored && last !== undefined ? last.start : alternative.end
      return `(?:${startsAnchored ? '' : '[^]*'}(?:${pattern.slice(from, to)})${endsAnchored ? '' : '[^]*'})`
    })
    .join('|')
}

function fromSource(source: string, maxStates: number): NFA {
  try {
    const parser = JS.Parser.fromLiteral({ source, flags: 'u' })
    const { expression, maxCharacter } = parser.parse({
      assertions: 'parse',
      backreferences: 'throw',
      maxNodes: maxStates,
    })
    const simplified = transform(Transformers.simplify(), expression)
    return NFA.fromRegex(
      simplified,
      { maxCharacter },
      { assertions: 'throw' },
      new NFA.LimitedNodeFactory(maxStates),
    )
  } catch (error) {
    throw new UnsupportedRegex(error instanceof Error ? error.message : String(error))
  }
}

/** The strings a `pattern` accepts. Throws UnsupportedRegex for lookarounds, backreferences, or too many states. */
export function patternLanguage(pattern: string, maxStates: number): NFA {
  let source: string
  try {
    source = anchoredSource(pattern)
  } catch (error) {
    throw new UnsupportedRegex(error instanceof Error ? error.message : String(error))
  }
  return fromSource(source, maxStates)
}

/** The strings of length in [min, max] code points (max undefined: unbounded). */
export function lengthLanguage(min: number, max: number | undefined, maxStates: number): NFA {
  if (min > 5000 || (max !== undefined && max > 5000))
    throw new UnsupportedRegex('length bound too large for an automaton')
  return fromSource(`[^]{${min},${max ?? ''}}`, maxStates)
}

export function intersect(languages: readonly NFA[], maxStates: number): NFA {
  const [first, ...rest] = languages
  if (first === undefined) return fromSource('[^]*', maxStates)
  let result = first
  try {
    for (const next of rest)
      result = NFA.fromIntersection(result, next, new NFA.LimitedNodeFactory(maxStates))
  } catch (error) {
    throw new UnsupportedRegex(error instanceof Error ? error.message : String(error))
  }
  return result
}

const wordToString = (word: ReadonlyWord) => String.fromCodePoint(...word)

/** Whether every string of `left` is in `right`; when not, one string that is in `left` only. */
export function inclusion(
  left: NFA,
  right: NFA,
  maxStates: number,
): { included: true } | { included: false; example: string | undefined } {
  try {
    const complement = DFA.fromFA(right, new DFA.LimitedNodeFactory(maxStates))
    complement.complement()
    if (isDisjointWith(left, complement, maxStates)) return { included: true }
    for (const word of getIntersectionWords(left, complement, maxStates))
      return { included: false, example: wordToString(word) }
    return { included: false, example: undefined }
  } catch (error) {
    throw new UnsupportedRegex(error instanceof Error ? error.message : String(error))
  }
}

/** The first `limit` characters of a set, in ascending order. */
function firstChars(set: CharSet, limit: number): number[] {
  const chars: number[] = []
  for (const range of set.ranges) {
    for (let char = range.min; char <= range.max && chars.length < limit; char++) chars.push(char)
    if (chars.length >= limit) break
  }
  return chars
}

/** Up to `limit` words of one sequence of character sets, the last position varying fastest. */
function wordsOfSets(sets: readonly CharSet[], limit: number): string[] {
  const choices = sets.map((set) => firstChars(set, limit))
  if (choices.some((chars) => chars.length === 0)) return []
  const at = choices.map(() => 0)
  const words: string[] = []
  while (words.length < limit) {
    words.push(String.fromCodePoint(...at.map((index, position) => choices[position]![index]!)))
    let position = at.length - 1
    while (position >= 0 && at[position] === choices[position]!.length - 1) at[position--] = 0
    if (position < 0) break
    at[position]!++
  }
  return words
}

/**
 * A few strings of the language, shortest first. A breadth-first walk in which each state is
 * expanded at most `count` times: O(count × transitions) steps and memory however ambiguous the
 * automaton is (refa's `words()` walks paths, whose number can grow exponentially with length).
 */
export function sampleWords(language: NFA, count: number): string[] {
  const found = new Set<string>()
  const expansions = new Map<NFA.ReadonlyNode, number>()
  const queue: { node: NFA.ReadonlyNode; sets: readonly CharSet[] }[] = [
    { node: language.initial, sets: [] },
  ]
  for (let head = 0; head < queue.length && found.size < count; head++) {
    const { node, sets } = queue[head]!
    const expanded = expansions.get(node) ?? 0
    if (expanded >= count) continue
    expansions.set(node, expanded + 1)
    if (language.finals.has(node as NFA.Node))
      for (const word of wordsOfSets(sets, count - found.size)) found.add(word)
    for (const [next, via] of node.out) queue.push({ node: next, sets: [...sets, via] })
  }
  return [...found].slice(0, count)
}

/** The shortest and (for a finite language) longest word length; null when the language is empty. */
export function lengthRange(language: NFA): { min: number; max: number | undefined } | null {
  if (language.isEmpty) return null
  const distance = new Map<NFA.ReadonlyNode, number>([[language.initial, 0]])
  const queue: NFA.ReadonlyNode[] = [language.initial]
  let min: number | undefined
  while (queue.length > 0) {
    const node = queue.shift()!
    const d = distance.get(node)!
    if (language.finals.has(node as NFA.Node) && min === undefined) min = d
    for (const next of node.out.keys()) {
      if (!distance.has(next)) {
        distance.set(next, d + 1)
        queue.push(next)
      }
    }
  }
  if (!language.isFinite) return { min: min ?? 0, max: undefined }
  const longest = new Map<NFA.ReadonlyNode, number>()
  const visit = (node: NFA.ReadonlyNode): number => {
    const known = longest.get(node)
    if (known !== undefined) return known
    let best = language.finals.has(node as NFA.Node) ? 0 : -Infinity
    for (const next of node.out.keys()) best = Math.max(best, 1 + visit(next))
    longest.set(node, best)
    return best
  }
  return { min: min ?? 0, max: visit(language.initial) }
}

/** Whether no string is in both languages. */
export function disjoint(left: NFA, right: NFA, maxStates: number): boolean {
  try {
    return isDisjointWith(left, right, maxStates)
  } catch (error) {
    throw new UnsupportedRegex(error instanceof Error ? error.message : String(error))
  }
}
