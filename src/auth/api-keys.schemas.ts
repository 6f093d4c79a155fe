import { Type } from 'typebox'
import { ErrorBodyRef } from '../http/index.js'
import { OrganizationParams } from './token-exchange.schemas.js'

export const ApiKeyView = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    organizationId: Type.String({ format: 'uuid' }),
    isAdmin: Type.Boolean(),
    description: Type.Union([Type.String(), Type.Null()]),
    createdAt: Type.String({ description: 'ISO 8601 UTC' }),
    revokedAt: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'ApiKey' },
)

const guardErrors = { 400: ErrorBodyRef, 401: ErrorBodyRef, 403: ErrorBodyRef }
const security = [{ bearer: [] }]

export const listApiKeysSchema = {
  summary: "List the organization's API keys (admin)",
  tags: ['credentials'],
  security,
  params: OrganizationParams,
  response: { 200: Type.Array(Type.Ref('ApiKey')), ...guardErrors },
}

export const createApiKeySchema = {
  summary: 'Create an API key; its secret is returned this once (admin)',
  tags: ['credentials'],
  security,
  params: OrganizationParams,
  // A misspelt field (`name` for `description`, `isAdmin` for `admin`) is refused, named.
  body: Type.Object(
    {
      description: Type.Optional(Type.String({ maxLength: 500 })),
      admin: Type.Optional(
        Type.Boolean({
          description: 'Whether the key may do admin actions such as deploying to PROD',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  response: {
    201: Type.Object({
      id: Type.String({ format: 'uuid' }),
      key: Type.String({ description: 'The secret; it cannot be shown again' }),
      isAdmin: Type.Boolean(),
      description: Type.Union([Type.String(), Type.Null()]),
    }),
    ...guardErrors,
  },
}

export const revokeApiKeySchema = {
  summary: 'Revoke an API key; its tokens stop working at once (admin)',
  tags: ['credentials'],
  security,
  params: Type.Object({ organizationId: Type.String(), apiKeyId: Type.String() }),
  response: { 200: Type.Ref('ApiKey'), ...guardErrors, 404: ErrorBodyRef },
}
