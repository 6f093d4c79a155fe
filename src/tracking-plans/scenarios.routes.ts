import { inBatchesBetweenTurns, isJsonObject, mapBetweenTurns } from '../shared/index.js'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { requirePrincipal } from '../auth/index.js'
import {
  ErrorBodyRef,
  registerEnvelopeErrorHandling,
  sendJson,
  serializerOf,
} from '../http/index.js'
import type { EventSpecWrites } from './event-spec-writes.js'
import { scenarioWithoutNulls } from './null-fields.js'
import type { EventSpecFound, EventSpecs } from './event-specs.js'
import {
  createScenarioSchema,
  deleteScenarioSchema,
  editScenarioSchema,
  ErrorItem,
  getScenarioSchema,
  HistoryRecord,
  listScenariosSchema,
  Scenario,
  UUID_PATTERN,
} from './scenarios.schemas.js'
import type { ScenarioOutcome, ScenariosService } from './scenarios.service.js'

/** Event specifications read at once for an answer, between two turns of the event loop. */
const SPECS_READ_AT_ONCE = 8

const caller = (request: FastifyRequest) =>
  requirePrincipal(request.principal, 'use tracking scenarios')

/** The `{data, includes, errors}` envelope of every tracking-scenarios answer. */
function envelope(outcome: ScenarioOutcome) {
  return { data: outcome.scenarios, includes: outcome.history, errors: outcome.problems }
}

/**
 * `/tracking-scenarios/v1`. Every answer, errors included, is the `{data, includes, errors}`
 * envelope, so this plugin renders its own errors; body pointers are relative to `scenario`.
 */
export const scenariosRoutes: FastifyPluginAsyncTypebox<{ scenarios: ScenariosService }> = async (
  app,
  { scenarios },
) => {
  registerEnvelopeErrorHandling(app, { bodyRoot: 'scenario' })
  // Optional fields sent as null (as Go clients send unset ones) read as absent.
  app.addHook('preValidation', async (request) => {
    const body = request.body
    if (isJsonObject(body) && isJsonObject(body.scenario))
      body.scenario = scenarioWithoutNulls(body.scenario)
  })

  // Thousands of scenarios and their history: serialized a few hundred a turn, sent in chunks.
  app.get('/', { schema: listScenariosSchema }, async (request, reply) => {
    const outcome = await scenarios.list(caller(request).organizationId, request.query)
    return sendJson(reply, {
      data: await mapBetweenTurns(outcome.scenarios, serializerOf(reply, Scenario)),
      includes: await mapBetweenTurns(outcome.history, serializerOf(reply, HistoryRecord)),
      errors: await mapBetweenTurns(outcome.problems, serializerOf(reply, ErrorItem)),
    })
  })
  app.get('/:trackingScenarioId', { schema: getScenarioSchema }, async (request) =>
    envelope(
      await scenarios.get(
        caller(request).organizationId,
        request.params.trackingScenarioId,
        request.query,
      ),
    ),
  )
  app.post('/', { schema: createScenarioSchema }, async (request, reply) =>
    reply
      .code(201)
      .send(
        envelope(
          await scenarios.create(caller(request), request.body.scenario, request.body.message),
        ),
      ),
  )
  app.put('/:trackingScenarioId', { schema: editScenarioSchema }, async (request) =>
    envelope(
      await scenarios.edit(
        caller(request),
        request.params.trackingScenarioId,
        request.body.scenario,
        request.body.message,
      ),
    ),
  )
  app.delete('/:trackingScenarioId', { schema: deleteScenarioSchema }, async (request) =>
    envelope(
      await scenarios.delete(caller(request).organizationId, request.params.trackingScenarioId),
    ),
  )
}

const specTags = ['event specifications']
const security = [{ bearer: [] }]
const specErrors = { 400: ErrorBodyRef, 401: ErrorBodyRef, 403: ErrorBodyRef, 404: ErrorBodyRef }
const SpecItem = Type.Object({}, { additionalProperties: true })
const SpecEnvelope = Type.Object({
  data: Type.Array(SpecItem),
  includes: Type.Array(Type.Unknown()),
  errors: Type.Array(Type.Unknown()),
  metadata: Type.Union([
    Type.Null(),
    Type.Object({
      outdatedDsWarnings: Type.Array(Type.Unknown()),
      hiddenDsWarnings: Type.Array(Type.Unknown()),
      metrics: Type.Array(Type.Unknown()),
    }),
  ]),
})

/** One event specification in its envelope, with its problems and snowtype's `metadata`. */
function specEnvelope(found: EventSpecFound) {
  return { data: [found.spec], includes: [], errors: found.problems, metadata: found.metadata }
}

const SpecWrite = Type.Object(
  {
    spec: Type.Object({}, { additionalProperties: true }),
    message: Type.Optional(Type.Union([Type.String({ maxLength: 10_000 }), Type.Null()])),
  },
  { additionalProperties: true },
)
const SpecIdParams = Type.Object({
  organizationId: Type.String(),
  id: Type.String({ pattern: UUID_PATTERN }),
})
const writeErrors = { ...specErrors, 409: ErrorBodyRef, 422: ErrorBodyRef }

/**
 * `/event-specs/v1`: scenarios in the shape snowtype and snowplow-cli read, and the writes
 * snowplow-cli makes (each the scenario write it stands for).
 */
export const eventSpecsRoutes: FastifyPluginAsyncTypebox<{
  eventSpecs: EventSpecs
  writes: EventSpecWrites
}> = async (app, { eventSpecs, writes }) => {
  app.post(
    '/',
    {
      schema: {
        summary: "Create an event specification (a tracking scenario; the id may be the client's)",
        tags: specTags,
        security,
        params: Type.Object({ organizationId: Type.String() }),
        body: SpecWrite,
        response: { 201: SpecEnvelope, ...writeErrors },
      },
    },
    async (request, reply) => {
      const principal = caller(request)
      const created = await writes.create(
        principal,
        request.body.spec,
        request.body.message ?? undefined,
      )
      return reply
        .code(201)
        .send(specEnvelope(await eventSpecs.written(principal.organizationId, created)))
    },
  )
  app.put(
    '/:id',
    {
      schema: {
        summary: 'Edit an event specification (a new version of the scenario)',
        tags: specTags,
        security,
        params: SpecIdParams,
        body: SpecWrite,
        response: { 200: SpecEnvelope, ...writeErrors },
      },
    },
    async (request) => {
      const principal = caller(request)
      const edited = await writes.update(
        principal,
        request.params.id,
        request.body.spec,
        request.body.message ?? undefined,
      )
      return specEnvelope(await eventSpecs.written(principal.organizationId, edited))
    },
  )
  app.delete(
    '/:id',
    {
      schema: {
        summary: 'Delete an event specification and its history',
        tags: specTags,
        security,
        params: SpecIdParams,
        response: { 204: Type.Null(), ...specErrors },
      },
    },
    async (request, reply) => {
      await writes.delete(caller(request).organizationId, request.params.id)
      return reply.code(204).send(null)
    },
  )
  app.post(
    '/publish',
    {
      schema: {
        summary: 'Publish event specifications whose schemas are all in production',
        tags: specTags,
        security,
        params: Type.Object({ organizationId: Type.String() }),
        body: Type.Object(
          {
            eventSpecIds: Type.Array(Type.String({ pattern: UUID_PATTERN }), {
              minItems: 1,
              maxItems: 1000,
            }),
          },
          { additionalProperties: true },
        ),
        response: {
          202: Type.Intersect([SpecEnvelope, Type.Object({ message: Type.String() })]),
          ...writeErrors,
        },
      },
    },
    async (request, reply) => {
      const principal = caller(request)
      await writes.publish(principal, request.body.eventSpecIds)
      const ids = [...new Set(request.body.eventSpecIds.map((id) => id.toLowerCase()))]
      // Read a few at a time: a thousand reads answered by PGlite at once held it for seconds.
      const specs = (
        await inBatchesBetweenTurns(ids, SPECS_READ_AT_ONCE, (id) =>
          eventSpecs.get(principal.organizationId, id),
        )
      ).map((found) => found.spec)
      return reply.code(202).send({
        data: specs,
        includes: [],
        errors: [],
        metadata: null,
        message: `Published ${specs.length} event specification${specs.length === 1 ? '' : 's'}`,
      })
    },
  )

  app.get(
    '/',
    {
      schema: {
        summary: 'Event specifications (tracking scenarios) of the organization',
        tags: specTags,
        security,
        params: Type.Object({ organizationId: Type.String() }),
        querystring: Type.Object({
          dataProductId: Type.Optional(Type.String({ pattern: UUID_PATTERN })),
          status: Type.Optional(
            Type.Union([
              Type.Literal('draft'),
              Type.Literal('published'),
              Type.Literal('deprecated'),
            ]),
          ),
        }),
        response: { 200: SpecEnvelope, ...specErrors },
      },
    },
    async (request, reply) => {
      const { specs, problems } = await eventSpecs.list(
        caller(request).organizationId,
        request.query,
      )
      // Thousands of specifications: serialized a few hundred a turn, and sent in chunks.
      return sendJson(reply, {
        data: await mapBetweenTurns(specs, serializerOf(reply, SpecItem)),
        includes: '[]',
        errors: await mapBetweenTurns(problems, (problem) => JSON.stringify(problem)),
        metadata: 'null',
      })
    },
  )
  app.get(
    '/:id',
    {
      schema: {
        summary: 'One event specification, with snowtype metadata and compatibility warnings',
        tags: specTags,
        security,
        params: Type.Object({
          organizationId: Type.String(),
          id: Type.String({ pattern: UUID_PATTERN }),
        }),
        response: { 200: SpecEnvelope, ...specErrors },
      },
    },
    async (request) =>
      specEnvelope(await eventSpecs.get(caller(request).organizationId, request.params.id)),
  )
}
