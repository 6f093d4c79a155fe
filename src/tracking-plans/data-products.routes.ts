import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { requirePrincipal } from '../auth/index.js'
import type {
  DataProductListing,
  DataProductsService,
  SourceApplicationView,
} from './data-products.service.js'
import { sendJson, serializerOf } from '../http/index.js'
import { mapBetweenTurns } from '../shared/index.js'
import {
  createDataProductSchema,
  DataProduct,
  createSourceAppSchema,
  deleteDataProductSchema,
  deleteSourceAppSchema,
  getDataProductSchema,
  getSourceAppSchema,
  listDataProductsSchema,
  listSourceAppsSchema,
  SourceApplication,
  updateDataProductSchema,
  updateSourceAppSchema,
} from './data-products.schemas.js'

type Options = { dataProducts: DataProductsService }
const caller = (request: FastifyRequest) => requirePrincipal(request.principal, 'use data products')

/** Absolute address of an event specification, as data products link them. */
function eventSpecLink(request: FastifyRequest, organizationId: string) {
  return (specId: string) =>
    `${request.protocol}://${request.host}/api/msc/v1/organizations/${organizationId}/tracking-scenarios/v2/${specId}`
}

/** Data products in their envelope: event specifications as links, what they link as `includes`. */
function productsEnvelope(listing: DataProductListing, request: FastifyRequest) {
  const linkTo = eventSpecLink(request, caller(request).organizationId)
  return {
    // In the order of the product's fields: the links where the ids were.
    data: listing.products.map(
      ({ eventSpecIds, sourceApplications, createdAt, updatedAt, ...product }) => ({
        ...product,
        eventSpecs: eventSpecIds.map((id) => ({ id, url: linkTo(id) })),
        sourceApplications,
        createdAt,
        updatedAt,
      }),
    ),
    includes: {
      owners: [],
      eventSpecs: [...listing.eventSpecs],
      sourceApplications: [...listing.sourceApplications],
    },
    errors: [],
    metadata: null,
  }
}

/** Source applications in their envelope. */
function applicationsEnvelope(applications: readonly SourceApplicationView[]) {
  return { data: [...applications], includes: [], errors: [], metadata: null }
}

/** `/data-products/v2`: the tracking plans snowtype reads, with their event specifications and source applications. */
export const dataProductsRoutes: FastifyPluginAsyncTypebox<Options> = async (
  app,
  { dataProducts },
) => {
  // Every product with every specification it links: serialized a few hundred items a turn.
  app.get('/', { schema: listDataProductsSchema }, async (request, reply) => {
    const listing = productsEnvelope(
      await dataProducts.listProducts(caller(request).organizationId),
      request,
    )
    const { owners, eventSpecs, sourceApplications } = listing.includes
    return sendJson(reply, {
      data: await mapBetweenTurns(listing.data, serializerOf(reply, DataProduct)),
      includes: {
        owners: JSON.stringify(owners),
        eventSpecs: await mapBetweenTurns(eventSpecs, (spec) => JSON.stringify(spec)),
        sourceApplications: await mapBetweenTurns(
          sourceApplications,
          serializerOf(reply, SourceApplication),
        ),
      },
      errors: '[]',
      metadata: 'null',
    })
  })
  app.get('/:id', { schema: getDataProductSchema }, async (request) =>
    productsEnvelope(
      await dataProducts.getProduct(caller(request).organizationId, request.params.id),
      request,
    ),
  )
  app.post('/', { schema: createDataProductSchema }, async (request, reply) =>
    reply
      .code(201)
      .send(
        productsEnvelope(
          await dataProducts.createProduct(caller(request).organizationId, request.body),
          request,
        ),
      ),
  )
  app.put('/:id', { schema: updateDataProductSchema }, async (request) =>
    productsEnvelope(
      await dataProducts.updateProduct(
        caller(request).organizationId,
        request.params.id,
        request.body,
      ),
      request,
    ),
  )
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
    applicationsEnvelope(await dataProducts.listSourceApplications(caller(request).organizationId)),
  )
  app.get('/:id', { schema: getSourceAppSchema }, async (request) =>
    applicationsEnvelope([
      await dataProducts.getSourceApplication(caller(request).organizationId, request.params.id),
    ]),
  )
  app.post('/', { schema: createSourceAppSchema }, async (request, reply) =>
    reply
      .code(201)
      .send(
        applicationsEnvelope([
          await dataProducts.createSourceApplication(caller(request).organizationId, request.body),
        ]),
      ),
  )
  app.put('/:id', { schema: updateSourceAppSchema }, async (request) =>
    applicationsEnvelope([
      await dataProducts.updateSourceApplication(
        caller(request).organizationId,
        request.params.id,
        request.body,
      ),
    ]),
  )
  app.delete('/:id', { schema: deleteSourceAppSchema }, async (request, reply) => {
    await dataProducts.deleteSourceApplication(caller(request).organizationId, request.params.id)
    return reply.code(204).send(null)
  })
}
