import type ajvDraft04 from 'ajv-draft-04'

/**
 * `uniqueItems` and `enum` in linear time. Ajv compares items pairwise (quadratic: a 50 000-value
 * `enum` took 20 s in the meta-schema's own `uniqueItems`) and scans an `enum` per value; these
 * compare JSON values by a canonical text instead, which is equal exactly when the values are
 * equal as JSON (keys in any order, 1 and 1.0 alike). Errors read as Ajv's own.
 */

/** Literal text in the walk below, told apart from the values still to write. */
class Text {
  constructor(readonly text: string) {}
}

/** A text equal for two JSON values exactly when they are equal. Iterative: no depth overflows it. */
export function equalityKey(value: unknown): string {
  const parts: string[] = []
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const item = stack.pop()
    if (item instanceof Text) parts.push(item.text)
    else if (Array.isArray(item)) {
      stack.push(new Text(']'))
      for (let i = item.length - 1; i >= 0; i--) stack.push(item[i], new Text(i > 0 ? ',' : '['))
      if (item.length === 0) stack.push(new Text('['))
    } else if (item !== null && typeof item === 'object') {
      const keys = Object.keys(item).sort()
      stack.push(new Text('}'))
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string
        stack.push(
          (item as Record<string, unknown>)[key],
          new Text(`${i > 0 ? ',' : '{'}${JSON.stringify(key)}:`),
        )
      }
      if (keys.length === 0) stack.push(new Text('{'))
    } else parts.push(JSON.stringify(item) ?? 'null')
  }
  return parts.join('')
}

export interface KeywordError {
  keyword: string
  message: string
  params: Record<string, unknown>
}
export type CheckingFunction = ((data: unknown) => boolean) & { errors?: KeywordError[] }

function uniqueItemsCheck(schema: unknown): CheckingFunction {
  const check: CheckingFunction = (data) => {
    check.errors = undefined
    if (schema !== true || !Array.isArray(data)) return true
    // Ajv reports the duplicate with the highest index, and the last item before it equal to it.
    const lastSeen = new Map<string, number>()
    let found: { i: number; j: number } | null = null
    for (let i = 0; i < data.length; i++) {
      const key = equalityKey(data[i])
      const j = lastSeen.get(key)
      if (j !== undefined) found = { i, j }
      lastSeen.set(key, i)
    }
    if (found === null) return true
    check.errors = [
      {
        keyword: 'uniqueItems',
        message: `must NOT have duplicate items (items ## ${found.j} and ${found.i} are identical)`,
        params: found,
      },
    ]
    return false
  }
  return check
}

function enumCheck(schema: unknown): CheckingFunction {
  const allowed = new Set(Array.isArray(schema) ? schema.map(equalityKey) : [])
  const check: CheckingFunction = (data) => {
    check.errors = undefined
    if (allowed.has(equalityKey(data))) return true
    check.errors = [
      {
        keyword: 'enum',
        message: 'must be equal to one of the allowed values',
        params: { allowedValues: schema },
      },
    ]
    return false
  }
  return check
}

/** Replaces Ajv's `uniqueItems` and `enum` with the linear ones, before any schema is compiled. */
export function addSetKeywords(ajv: InstanceType<typeof ajvDraft04.default>): void {
  ajv.removeKeyword('uniqueItems')
  ajv.removeKeyword('enum')
  ajv.addKeyword({
    keyword: 'uniqueItems',
    schemaType: 'boolean',
    compile: uniqueItemsCheck,
    errors: true,
  })
  ajv.addKeyword({ keyword: 'enum', schemaType: 'array', compile: enumCheck, errors: true })
}
