import { Type } from 'typebox'

/**
 * Route compilers for schemas that only document a route in the API document: no request is
 * checked (the route reads its own input, as the inspection API reads Micro's filters whatever
 * their media type) and no answer is shaped (it is sent as the route wrote it). Tests hold the
 * answers of a real server to the document instead (`test/support/openapi-contract.ts`).
 */
export const documentedOnly = {
  validatorCompiler: () => () => true,
  serializerCompiler: () => (data: unknown) => JSON.stringify(data),
} as const

/** A plain-text answer, in a route's `response`. */
export function textAnswer(description: string) {
  return { description, content: { 'text/plain': { schema: Type.String() } } }
}
