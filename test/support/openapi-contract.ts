import { createAjv } from '../../src/iglu/index.js'
import { requestJson, type JsonResponse } from './api-client.js'

/**
 * Holds real answers to the API document a server serves (`/openapi.json`): each answer's body
 * must fit the schema the document gives for its operation, status and media type. The document's
 * schemas are OpenAPI 3.0 (`nullable`), read here as the JSON Schema they stand for, and checked
 * with the project's validator.
 */

interface MediaType {
  readonly schema?: unknown
}
interface Operation {
  readonly responses?: Record<
    string,
    { readonly content?: Record<string, MediaType>; readonly description?: string }
  >
}
export interface ApiDocument {
  readonly paths: Record<string, Record<string, Operation>>
  readonly components?: { readonly schemas?: Record<string, unknown> }
}

/** OpenAPI 3.0's `nullable: true` as JSON Schema: null is one more value the schema accepts. */
export function asJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(asJsonSchema)
  if (node === null || typeof node !== 'object') return node
  const { nullable, ...rest } = node as Record<string, unknown>
  const converted = Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [key, asJsonSchema(value)]),
  )
  if (nullable !== true) return converted
  if (Array.isArray(converted.enum) && !converted.enum.includes(null))
    converted.enum = [...converted.enum, null]
  if (typeof converted.type === 'string') return { ...converted, type: [converted.type, 'null'] }
  return { anyOf: [converted, { type: 'null' }] }
}

/**
 * The document's path of the operation that a request's path reaches: an exact path first, else
 * the template (`/things/{id}`) with the most literal segments. Null when none does.
 */
export function documentedPath(document: ApiDocument, method: string, url: string): string | null {
  const path = url.split('?')[0] ?? url
  const segments = path.split('/')
  let best: { path: string; literal: number } | null = null
  for (const [template, operations] of Object.entries(document.paths)) {
    if (operations[method.toLowerCase()] === undefined) continue
    const parts = template.split('/')
    if (parts.length !== segments.length) continue
    let literal = 0
    const fits = parts.every((part, i) => {
      if (/^\{[^}]+\}$/.test(part)) return (segments[i] ?? '') !== ''
      literal += 1
      return part === segments[i]
    })
    if (fits && (best === null || literal > best.literal)) best = { path: template, literal }
  }
  return best?.path ?? null
}

export interface AnswerCheck {
  /** What does not fit, or null when the answer fits its documented schema. */
  readonly problem: string | null
}

/** The checker of one document: `check` judges an answer; `checked` lists what was judged. */
export function documentContract(document: ApiDocument) {
  const ajv = createAjv({ allErrors: true })
  const components = asJsonSchema(document.components ?? {})
  const validators = new Map<string, ReturnType<typeof ajv.compile>>()
  const checked = new Set<string>()

  const check = (
    method: string,
    path: string,
    status: number,
    contentType: string | null,
    body: unknown,
  ): AnswerCheck => {
    const operation = document.paths[path]?.[method.toLowerCase()]
    if (operation === undefined) return { problem: `${method} ${path} is not in the document` }
    const response = operation.responses?.[String(status)]
    if (response === undefined)
      return { problem: `${method} ${path} answered ${status}, which the document does not list` }
    const mediaType = (contentType ?? '').split(';')[0]?.trim() ?? ''
    const listed = response.content
    // The exact media type, else a range that holds it (`text/*`, `*/*`).
    const content =
      listed?.[mediaType] ??
      listed?.[`${mediaType.split('/')[0] ?? ''}/*`] ??
      (mediaType === '' ? undefined : listed?.['*/*'])
    if (listed !== undefined && content === undefined)
      return {
        problem: `${method} ${path} answered ${status} as ${mediaType || 'nothing'}; the document lists ${Object.keys(listed).join(', ')}`,
      }
    checked.add(`${method.toUpperCase()} ${path} ${status}`)
    if (content === undefined)
      return {
        problem:
          body === '' ? null : `${method} ${path} ${status}: a body where the document says none`,
      }
    const key = `${method} ${path} ${status} ${mediaType}`
    let validate = validators.get(key)
    if (validate === undefined) {
      validate = ajv.compile({ ...(asJsonSchema(content.schema) as object), components })
      validators.set(key, validate)
    }
    if (validate(body)) return { problem: null }
    const errors = (validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    return { problem: `${method} ${path} ${status}: ${errors.join('; ')}` }
  }
  return { check, checked, document }
}

const contracts = new Map<string, Promise<ReturnType<typeof documentContract>>>()

/**
 * `requestJson`'s answer to a request of an operation of the API document the server at `baseUrl`
 * serves, once it is held to that document: a problem is thrown, naming what does not fit.
 */
export async function requestDocumented(
  baseUrl: string,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<JsonResponse> {
  let contract = contracts.get(baseUrl)
  if (contract === undefined) {
    contract = requestJson(`${baseUrl}/openapi.json`).then(({ body }) =>
      documentContract(body as ApiDocument),
    )
    contracts.set(baseUrl, contract)
  }
  const method = init.method ?? 'GET'
  const answer = await requestJson(`${baseUrl}${path}`, init)
  const document = (await contract).document
  const operation = documentedPath(document, method, path)
  if (operation === null) throw new Error(`${method} ${path} is no operation of the API document`)
  const { problem } = (await contract).check(
    method,
    operation,
    answer.status,
    answer.headers.get('content-type'),
    answer.body,
  )
  if (problem !== null) throw new Error(`the answer is not as documented: ${problem}`)
  return answer
}
