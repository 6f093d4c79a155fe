import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { requirePrincipal } from '../auth/index.js'
import { jsonBody, jsonTextOf, queryFlag } from '../http/index.js'
import type { RegistryService } from './registry.service.js'
import { initiatorOf } from './deployment-request.js'
import { NoDryRunError } from './registry.errors.js'
import {
  deploymentSchema,
  destinationsSchema,
  draftsSchema,
  schemaMigrationsSchema,
  deploymentsSchema,
  structureVersionsSchema,
  getSchema,
  getVersionSchema,
  schemaVersionsSchema,
  listSchema,
  metaSchema,
  requestStatusSchema,
  validationSchema,
} from './registry.schemas.js'

/** Largest page of deployment history; clients asking for more (snowplow-cli asks for 1e9) get this many. */
const MAX_PAGE = 100_000

type RegistryOptions = { registry: RegistryService }
const JSON_TYPE = 'application/json; charset=utf-8'
const caller = (principal: Parameters<typeof requirePrincipal>[0]) =>
  requirePrincipal(principal, 'use the registry')

/** Validation and deployment requests, sync and async, and their polling routes. */
export const registryRequestRoutes: FastifyPluginAsyncTypebox<RegistryOptions> = async (
  app,
  { registry },
) => {
  for (const url of ['/validation-requests', '/validation-requests/sync']) {
    app.post(url, { schema: validationSchema }, async (request, reply) => {
      const { organizationId } = caller(request.principal)
      // The body as sent, so that the schema's numbers are stored and served as written.
      const body = { ...request.body, bodyText: jsonTextOf(request) ?? undefined }
      if (queryFlag(request.query.dryRun, false))
        return reply.code(201).send(await registry.validate(organizationId, body, { dryRun: true }))
      if (url.endsWith('/sync') || !queryFlag(request.query.async, false)) {
        return reply.code(201).send(await registry.validate(organizationId, body))
      }
      return reply.code(202).send(await registry.validateLater(organizationId, body))
    })
  }
  app.get('/validation-requests/:id', { schema: requestStatusSchema }, async (request) =>
    registry.findRequest(caller(request.principal).organizationId, 'validation', request.params.id),
  )

  for (const url of ['/deployment-requests', '/deployment-requests/sync']) {
    // A refusal carries `success: false` and `errors`, where snowplow-cli reads why.
    const config = { refusalsAsResults: true }
    app.post(url, { schema: deploymentSchema, config }, async (request, reply) => {
      const principal = caller(request.principal)
      // A client expecting the validation's dry run here must not deploy for real.
      if (queryFlag(request.query.dryRun, false)) throw new NoDryRunError()
      const options = {
        patch: queryFlag(request.query.patch, false),
        initiator: initiatorOf(principal),
      }
      if (url.endsWith('/sync') || !queryFlag(request.query.async, false)) {
        return reply
          .code(201)
          .send(await registry.deploy(principal.organizationId, request.body, options))
      }
      return reply
        .code(202)
        .send(await registry.deployLater(principal.organizationId, request.body, options))
    })
  }
  app.get('/deployment-requests/:id', { schema: requestStatusSchema }, async (request) =>
    registry.findRequest(caller(request.principal).organizationId, 'deployment', request.params.id),
  )
}

/** Reads of data structure records, their versions and history, and their metadata. */
export const dataStructureRoutes: FastifyPluginAsyncTypebox<RegistryOptions> = async (
  app,
  { registry },
) => {
  app.get('/', { schema: listSchema }, async (request) => {
    const { vendor, name, format, from, size } = request.query
    return registry.list(caller(request.principal).organizationId, {
      vendor,
      name,
      format,
      from: Math.min(Number(from ?? 0), Number.MAX_SAFE_INTEGER),
      size: Math.min(Number(size ?? MAX_PAGE), MAX_PAGE),
    })
  })

  app.get('/:hash', { schema: getSchema }, async (request) =>
    registry.get(caller(request.principal).organizationId, request.params.hash),
  )

  // The schema's text as it was sent: its numbers exactly as written.
  app.get('/:hash/versions/:version', { schema: getVersionSchema }, async (request, reply) => {
    const found = await registry.getVersion(
      caller(request.principal).organizationId,
      request.params.hash,
      request.params.version,
      request.query.env,
    )
    return reply.type(JSON_TYPE).send(found.text)
  })

  app.get('/:hash/versions', { schema: structureVersionsSchema }, async (request, reply) =>
    reply
      .type(JSON_TYPE)
      .send(
        jsonBody(
          await registry.structureVersions(
            caller(request.principal).organizationId,
            request.params.hash,
            request.query.env,
          ),
        ),
      ),
  )

  app.get('/:hash/deployments', { schema: deploymentsSchema }, async (request) => {
    const { from, size, env, version } = request.query
    return registry.deployments(caller(request.principal).organizationId, request.params.hash, {
      from: Math.min(Number(from ?? 0), Number.MAX_SAFE_INTEGER),
      size: Math.min(Number(size ?? MAX_PAGE), MAX_PAGE),
      env,
      version,
    })
  })

  app.put('/:hash/meta', { schema: metaSchema }, async (request) =>
    registry.updateMeta(
      caller(request.principal).organizationId,
      request.params.hash,
      request.body,
      'replace',
    ),
  )
  app.patch('/:hash/meta', { schema: metaSchema }, async (request) =>
    registry.updateMeta(
      caller(request.principal).organizationId,
      request.params.hash,
      request.body,
      'merge',
    ),
  )
}

/** `/data-structures/v1`: the Console's data structures API over the registry service. */
export const registryRoutes: FastifyPluginAsyncTypebox<RegistryOptions> = async (
  app,
  { registry },
) => {
  app.get('/schemas/versions', { schema: schemaVersionsSchema }, async (request, reply) =>
    reply
      .type(JSON_TYPE)
      .send(
        jsonBody(
          await registry.schemaVersions(
            caller(request.principal).organizationId,
            request.query.env,
            queryFlag(request.query.latest, true),
          ),
        ),
      ),
  )
  app.post('/schema-migrations', { schema: schemaMigrationsSchema }, async (request) =>
    registry.migration(caller(request.principal).organizationId, request.body),
  )
  await app.register(registryRequestRoutes, { registry })
  await app.register(dataStructureRoutes, { registry })
}

/**
 * Around the data structures, what snowplow-cli also reads: `destinations/v3` (the warehouses its
 * migration check runs for; Floe loads into none, so the list is empty and the check is skipped)
 * and `data-structure-drafts/v1/schemas` (Floe keeps no drafts).
 */
export const registryNeighbourRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/destinations/v3', { schema: destinationsSchema }, async (request) => {
    caller(request.principal)
    return []
  })
  app.get('/data-structure-drafts/v1/schemas', { schema: draftsSchema }, async (request) => {
    caller(request.principal)
    return []
  })
}

/**
 * `/api/schemas/v1/organizations/{organizationId}`: the legacy Schemas API, tunnelled to the same handlers.
 * Records live under `/schemas`; validation and deployment requests sit at the organization level.
 */
export const legacySchemasRoutes: FastifyPluginAsyncTypebox<RegistryOptions> = async (
  app,
  { registry },
) => {
  await app.register(registryRequestRoutes, { registry })
  await app.register(dataStructureRoutes, { registry, prefix: '/schemas' })
}
