import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { ErrorBodyRef } from '../http/index.js'
import type { Organization } from './organizations.store.js'
import type { Principal } from './principal.js'

/**
 * `GET /api/msc/v1/organizations`: the organizations a bearer token may use, `[{id, name}]` (its
 * key's one). `snowplow-cli status` reads it to check that its organization is there.
 */
export const organizationsRoutes: FastifyPluginAsyncTypebox<{
  readonly principalOf: (request: FastifyRequest) => Promise<Principal>
  readonly findOrganization: (id: string) => Promise<Organization | null>
}> = async (app, { principalOf, findOrganization }) => {
  app.get(
    '/',
    {
      schema: {
        summary: 'The organizations of the access token (its API key belongs to one)',
        tags: ['credentials'],
        security: [{ bearer: [] }],
        response: {
          200: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
          401: ErrorBodyRef,
        },
      },
    },
    async (request) => {
      const principal = await principalOf(request)
      const organization = await findOrganization(principal.organizationId)
      return organization === null ? [] : [{ id: organization.id, name: organization.name }]
    },
  )
}
