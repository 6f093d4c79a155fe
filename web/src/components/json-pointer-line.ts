import { parseTree, type Node } from 'jsonc-parser'

/** The child of an object (by property name) or an array (by index) that a pointer's part names. */
function childOf(node: Node, part: string): Node | undefined {
  if (node.type === 'object')
    return node.children?.find((property) => property.children?.[0]?.value === part)?.children?.[1]
  if (node.type === 'array' && /^(0|[1-9]\d*)$/.test(part)) return node.children?.[Number(part)]
  return undefined
}

/**
 * The 1-based line where the value at a JSON Pointer (RFC 6901) starts in `text`, with its
 * property name when it has one; a pointer past what exists names its nearest existing parent.
 * Null when the text is not JSON.
 */
export function lineOfPointer(text: string, pointer: string): number | null {
  let node = parseTree(text)
  if (node === undefined) return null
  const parts = pointer === '' || pointer === '/' ? [] : pointer.split('/').slice(1)
  for (const part of parts) {
    const child = childOf(node, part.replace(/~1/g, '/').replace(/~0/g, '~'))
    if (child === undefined) break
    node = child
  }
  const offset = node.parent?.type === 'property' ? node.parent.offset : node.offset
  return text.slice(0, offset).split('\n').length
}
