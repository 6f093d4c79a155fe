import type { FastifyReply } from 'fastify'
import { allowedValuesIssue, type ValidationIssue } from '../../iglu/index.js'
import { firstUnstorable } from '../../shared/index.js'

export type BodyReading<T> =
  { ok: true; filter: T } | { ok: false; status: 400 | 422; message: string }

/** A JSON body checked against its schema: 400 when it is not JSON, 422 when it does not fit (Micro's statuses). */
export function readBody<T>(
  body: unknown,
  validate: ((value: unknown) => boolean) & { errors?: unknown },
  normalize: (parsed: unknown) => unknown = (parsed) => parsed,
): BodyReading<T> {
  let parsed: unknown
  try {
    parsed = normalize(JSON.parse(typeof body === 'string' ? body : ''))
  } catch {
    return { ok: false, status: 400, message: 'The request body was malformed.' }
  }
  if (validate(parsed)) return { ok: true, filter: parsed as T }
  const issues = (validate.errors ?? []) as ValidationIssue[]
  const first = allowedValuesIssue(issues) ?? issues[0]
  // A field the body may not have is named (Ajv's own words only say that there is one).
  const unknown = first?.params?.additionalProperty
  const problem =
    typeof unknown === 'string'
      ? `${first?.instancePath ?? ''}/${unknown} is not a known field`
      : `${first?.instancePath || 'body'} ${first?.message ?? ''}`
  return { ok: false, status: 422, message: `The request body was invalid: ${problem}`.trim() }
}

/**
 * The refusal of a request to Floe's own inspection routes, in the server's error shape: a body or
 * a query string that does not fit (400 or 422) is `INVALID_REQUEST`, as elsewhere.
 */
export const fail = (reply: FastifyReply, reading: { status: number; message: string }) =>
  reply.code(reading.status).send({ message: reading.message, code: 'INVALID_REQUEST' })

/**
 * The refusal of a `/good` or `/bad` filter as Micro answers it: plain text (`The request body
 * was malformed.`), not JSON, so that a suite written against Micro reads the same.
 */
export const failAsMicro = (reply: FastifyReply, reading: { status: number; message: string }) =>
  reply.code(reading.status).type('text/plain; charset=utf-8').send(reading.message)

/** A Java `int` as `Integer.parseInt` reads it from text: a sign, then decimal digits. */
const JAVA_INT_TEXT = /^[+-]?[0-9]{1,10}$/

/**
 * A filter body whose `limit` is a number written as a string (`"limit":"10"`) read as that
 * number, as Micro's decoder (circe's `Int`) reads one; any other value is left for the schema to
 * judge, so `"x"` or `"1.5"` stay wrong types (422).
 */
export function withLimitTextAsNumber(parsed: unknown): unknown {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return parsed
  const { limit } = parsed as { limit?: unknown }
  if (typeof limit !== 'string' || !JAVA_INT_TEXT.test(limit)) return parsed
  const value = Number(limit)
  return value >= -2_147_483_648 && value <= 2_147_483_647 ? { ...parsed, limit: value } : parsed
}

/**
 * A filter value no stored event can hold as written (U+0000, a lone surrogate): refused, 422
 * naming it, as Micro words a body that does not fit. A database store cannot even compare one
 * (PostgreSQL refuses U+0000 in text and in JSON).
 */
export function unstorableFilter(filter: object): { status: 422; message: string } | null {
  const found = firstUnstorable('', filter)
  return found === null
    ? null
    : { status: 422, message: `The request body was invalid: ${found.where} ${found.problem}` }
}
