import { parseTree, type Node } from 'jsonc-parser'
import { firstAtOrAfter } from './sorted-search.js'

/** The child of an object (by property name) or an array (by index) that a pointer's part names. */
function childOf(node: Node, part: string): Node | undefined {
  if (node.type === 'object')
    return node.children?.find((property) => property.children?.[0]?.value === part)?.children?.[1]
  if (node.type === 'array' && /^(0|[1-9]\d*)$/.test(part)) return node.children?.[Number(part)]
  return undefined
}

/**
 * A reader of the 1-based line where the value at a JSON Pointer (RFC 6901) starts in `text`, with
 * its property name when it has one; a pointer past what exists names its nearest existing parent.
 * The text is parsed once, for every pointer asked of it. Null when the text is not JSON.
 */
export function pointerLines(text: string): (pointer: string) => number | null {
  const root = parseTree(text)
  let lineBreaks: number[] | null = null
  // A line is one plus the number of line breaks before the offset.
  const lineAt = (offset: number) => {
    lineBreaks ??= [...text.matchAll(/\n/g)].map((match) => match.index)
    return firstAtOrAfter(lineBreaks, offset) + 1
  }
  return (pointer) => {
    let node = root
    if (node === undefined) return null
    const parts = pointer === '' || pointer === '/' ? [] : pointer.split('/').slice(1)
    for (const part of parts) {
      const child = childOf(node, part.replace(/~1/g, '/').replace(/~0/g, '~'))
      if (child === undefined) break
      node = child
    }
    return lineAt(node.parent?.type === 'property' ? node.parent.offset : node.offset)
  }
}

/** The line of one pointer in `text` (see {@link pointerLines}, which parses once for many). */
export const lineOfPointer = (text: string, pointer: string): number | null =>
  pointerLines(text)(pointer)
