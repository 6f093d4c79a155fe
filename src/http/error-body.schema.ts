import { Type, type Static } from 'typebox'

/** The body of every JSON error answer in the server. */
export const ErrorBody = Type.Object(
  {
    message: Type.String({
      description: 'What went wrong, for people; names the offending field where there is one.',
    }),
    code: Type.String({ description: 'Stable machine-readable error code.' }),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { $id: 'ErrorBody', description: 'An error.' },
)
export type ErrorBody = Static<typeof ErrorBody>

/** Reference to the shared error body, for route response schemas. */
export const ErrorBodyRef = Type.Ref('ErrorBody')
