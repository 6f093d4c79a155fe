import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { requirePrincipal } from '../auth/index.js'
import type { DataProductsService } from './data-products.service.js'
import {
  createDataProductSchema,
  createSourceAppSchema,
  deleteDataProductSchema,
  deleteSourceAppSchema,
  getDataProductSchema,
  getSourceAppSchema,
  listDataProductsSchema,
  listSourceAppsSchema,
  updateDataProductSchema,
  updateSourceAppSchema,
} from './data-products.schemas.js'

type Options = { dataProducts: DataProductsService }
const caller = (request: FastifyRequest) => requirePrincipal(request.principal, 'use data products')

/** Absolute address of an event specification, as data products link them. */
function eventSpecLink(request: FastifyRequest, organizationId: string) {
  return (specId: string) =>
    `${request.protocol}://${request.host}/api/msc/v1/organizations/${organizationId}/event-specs/v1/${specId}`
}

/** `/data-products/v2`: the tracking plans snowtype reads, with their event specifications and source applications. */
export const dataProductsRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app,
  { dataProducts },
) => {
  app.get('/', { schema: listDataProductsSchema }, async (request) => {
    const { organizationId } = caller(request)
    return dataProducts.listProducts(organizationId, eventSpecLink(request, organizationId))
  })
  app.get('/:id', { schema: getDataProductSchema }, async (request) => {
    const { organizationId } = caller(request)
    return dataProducts.getProduct(
      organizationId,
      request.params.id,
      eventSpecLink(request, organizationId),
    )
  })
  app.post('/', { schema: createDataProductSchema }, async (request, reply) => {
    const { organizationId } = caller(request)
    return reply
      .code(201)
      .send(
        await dataProducts.createProduct(
          organizationId,
          request.body,
          eventSpecLink(request, organizationId),
        ),
      )
  })
  app.put('/:id', { schema: updateDataProductSchema }, async (request) => {
    const { organizationId } = caller(request)
    return dataProducts.updateProduct(
      organizationId,
      request.params.id,
      request.body,
      eventSpecLink(request, organizationId),
    )
  })
  app.delete('/:id', { schema: deleteDataProductSchema }, async (request, reply) => {
    await dataProducts.deleteProduct(caller(request).organizationId, request.params.id)
    return reply.code(204).send(null)
  })
}

/** `/source-apps/v1`: the minimal source applications data products point at. */
export const sourceApplicationsRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app,
  { dataProducts },
) => {
  app.get('/', { schema: listSourceAppsSchema }, async (request) =>
    dataProducts.listSourceApplications(caller(request).organizationId),
  )
  app.get('/:id', { schema: getSourceAppSchema }, async (request) =>
    dataProducts.getSourceApplication(caller(request).organizationId, request.params.id),
  )
  app.post('/', { schema: createSourceAppSchema }, async (request, reply) =>
    reply
      .code(201)
      .send(
        await dataProducts.createSourceApplication(caller(request).organizationId, request.body),
      ),
  )
  app.put('/:id', { schema: updateSourceAppSchema }, async (request) =>
    dataProducts.updateSourceApplication(
      caller(request).organizationId,
      request.params.id,
      request.body,
    ),
  )
  app.delete('/:id', { schema: deleteSourceAppSchema }, async (request, reply) => {
    await dataProducts.deleteSourceApplication(caller(request).organizationId, request.params.id)
    return reply.code(204).send(null)
  })
}
