import { Type } from 'typebox'
import { ErrorBodyRef } from '../http/index.js'

export const OrganizationParams = Type.Object({
  organizationId: Type.String({ description: 'Organization UUID' }),
})

export const TokenResponse = Type.Object(
  {
    accessToken: Type.String({
      description: 'HS256 JWT to send as "Authorization: Bearer <accessToken>"',
    }),
  },
  { $id: 'TokenResponse' },
)

const errorResponses = { 400: ErrorBodyRef, 401: ErrorBodyRef, 429: ErrorBodyRef }

export const v2TokenSchema = {
  summary: 'Exchange an API key secret for an access token',
  tags: ['credentials'],
  params: OrganizationParams,
  headers: Type.Object({
    'x-api-key': Type.Optional(Type.String({ description: 'The API key secret' })),
  }),
  response: { 200: TokenResponse, ...errorResponses },
}

export const v3TokenSchema = {
  summary: 'Exchange an API key id and secret for an access token',
  tags: ['credentials'],
  params: OrganizationParams,
  headers: Type.Object({
    'x-api-key-id': Type.Optional(Type.String({ description: 'The API key id' })),
    'x-api-key': Type.Optional(Type.String({ description: 'The API key secret' })),
    'x-api-key-secret': Type.Optional(
      Type.String({ description: 'Alternative spelling of X-API-Key' }),
    ),
  }),
  response: { 200: TokenResponse, ...errorResponses },
}
