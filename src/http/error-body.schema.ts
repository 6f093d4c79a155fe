import { Type, type Static } from 'typebox'

/** The body of every JSON error answer in the server. */
export const ErrorBody = Type.Object(
  {
    message: Type.String({
      description: 'What went wrong, for people; names the offending field where there is one.',
    }),
    code: Type.String({ description: 'Stable machine-readable error code.' }),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    success: Type.Optional(
      Type.Literal(false, {
        description:
          'Deployment requests only: false, as the result of a deployment that did not happen says it',
      }),
    ),
    errors: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'Deployment requests only: the message again, where snowplow-cli and scripts read why a deployment failed',
      }),
    ),
  },
  { $id: 'ErrorBody', description: 'An error.' },
)
export type ErrorBody = Static<typeof ErrorBody>

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route's refusals also say `success: false` and `errors: [message]`, as a failed request's
     * result does (deployment requests: clients read `errors` on any answer but a 201).
     */
    readonly refusalsAsResults?: boolean
  }
}

/** An error body, with `success` and `errors` where the route asks for them (`refusalsAsResults`). */
export function errorBodyFor(
  config: { readonly refusalsAsResults?: boolean } | undefined,
  body: ErrorBody,
): ErrorBody {
  return config?.refusalsAsResults === true
    ? { ...body, success: false, errors: [body.message] }
    : body
}

/** Reference to the shared error body, for route response schemas. */
export const ErrorBodyRef = Type.Ref('ErrorBody')
