import type { SchemaNode } from './linter.js'
import { escapePointerToken, isJsonObject } from '../../shared/index.js'

const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', 'dependencies'] as const
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'] as const
const SCHEMA_VALUES = ['additionalProperties', 'additionalItems', 'not'] as const

/** Every subschema of a draft-04 schema, root first, with its JSON pointer. Iterative, so depth cannot overflow the stack. */
export function walkSubschemas(root: Readonly<Record<string, unknown>>): SchemaNode[] {
  const nodes: SchemaNode[] = []
  const stack: SchemaNode[] = [{ schema: root, pointer: '', isRoot: true }]
  while (stack.length > 0) {
    const node = stack.pop()!
    nodes.push(node)
    const { schema, pointer } = node
    const push = (value: unknown, path: string) => {
      if (isJsonObject(value))
        stack.push({ schema: value, pointer: `${pointer}${path}`, isRoot: false })
    }
    for (const keyword of SCHEMA_MAPS) {
      const map = schema[keyword]
      if (isJsonObject(map))
        for (const [name, value] of Object.entries(map))
          push(value, `/${keyword}/${escapePointerToken(name)}`)
    }
    for (const keyword of SCHEMA_LISTS) {
      const list = schema[keyword]
      if (Array.isArray(list)) list.forEach((value, i) => push(value, `/${keyword}/${i}`))
    }
    for (const keyword of SCHEMA_VALUES) push(schema[keyword], `/${keyword}`)
    const items = schema.items
    if (Array.isArray(items)) items.forEach((value, i) => push(value, `/items/${i}`))
    else push(items, '/items')
  }
  return nodes
}
