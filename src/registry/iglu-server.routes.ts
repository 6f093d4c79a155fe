import { setImmediate as otherWork } from 'node:timers/promises'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { Principal } from '../auth/index.js'
import { ErrorBodyRef, jsonBody, textAnswer } from '../http/index.js'
import { objectMembers, objectText, parseSchemaVer } from '../iglu/index.js'
import type { IgluRepository, PublishedKey, PublishedSchema } from './iglu-repository.js'
import { SchemaNotFoundError } from './registry.errors.js'
import {
  IGLU_BASE_PARAMS,
  IGLU_SCHEMA_PARAMS,
  IGLU_SECURITY,
  IGLU_TAGS,
  schemasReadableBy,
} from './iglu-route-schemas.js'

const Repr = Type.Union([Type.Literal('uri'), Type.Literal('canonical'), Type.Literal('meta')])
const RepoParams = IGLU_BASE_PARAMS
const errors = { 400: ErrorBodyRef, 401: ErrorBodyRef, 403: ErrorBodyRef, 404: ErrorBodyRef }
const listResponse = { 200: Type.Array(Type.Unknown()), ...errors }
const ListQuery = Type.Object({
  repr: Type.Optional(Repr),
  metadata: Type.Optional(
    Type.String({ description: '1 or true: each schema with its metadata (as repr=meta)' }),
  ),
})
const MODEL = /^(0|[1-9][0-9]{0,8})$/

type ReprName = 'uri' | 'canonical' | 'meta'

/**
 * A schema as Iglu Server represents it, as JSON text: its members moved (`$schema` and `self`
 * first, or `self` and `metadata`), each value as it was written.
 */
function represent(schema: PublishedSchema, repr: ReprName, createdAt?: Date): string {
  if (repr === 'uri') return JSON.stringify(schema.uri)
  const members = objectMembers(schema.text)
  if (members === null) return schema.text
  const take = (name: string) => {
    const value = members.get(name)
    members.delete(name)
    return value === undefined ? [] : [[name, value] as const]
  }
  const schemaMember = take('$schema')
  const self = take('self')
  const metadata = JSON.stringify({
    createdAt: (createdAt ?? schema.deployedAt).toISOString(),
    updatedAt: schema.deployedAt.toISOString(),
    isPublic: schema.isPublic,
  })
  return repr === 'canonical'
    ? objectText([...schemaMember, ...self, ...members])
    : objectText([...self, ['metadata', metadata], ...members])
}

const JSON_TYPE = 'application/json; charset=utf-8'
/** Characters of schema text represented between two turns of the event loop (~5 ms of work). */
const REPRESENTED_BYTES = 1024 * 1024

/**
 * `.../api/meta/health`: `OK` as text, without credentials, as Iglu Server answers load balancers;
 * `.../api/meta/health/db` the same once the database answered a query.
 */
export const igluHealthRoutes: FastifyPluginAsyncTypebox<{
  repository: Pick<IgluRepository, 'ping'>
}> = async (app, { repository }) => {
  app.get(
    '/meta/health',
    {
      schema: {
        summary: 'Iglu Server health (no credentials needed)',
        tags: IGLU_TAGS,
        params: Type.Object(RepoParams),
        response: { 200: textAnswer('OK') },
      },
    },
    async (_request, reply) => reply.type('text/plain').send('OK'),
  )
  app.get(
    '/meta/health/db',
    {
      schema: {
        summary: 'Iglu Server health of the database (no credentials needed)',
        tags: IGLU_TAGS,
        params: Type.Object(RepoParams),
        response: {
          200: textAnswer('OK, once the database answered a query'),
          503: textAnswer('The database does not answer'),
        },
      },
    },
    async (request, reply) => {
      try {
        await repository.ping()
      } catch (error) {
        request.log.warn({ err: error }, 'the database did not answer the Iglu health check')
        return reply.code(503).type('text/plain').send('The database does not answer')
      }
      return reply.type('text/plain').send('OK')
    },
  )
}

/**
 * `/iglu/{organizationId}/{dev|prod}/api`: the read side of Iglu Server's API over one environment of
 * the registry, so that Iglu resolvers (Enrich, Micro, igluctl, our own inspection) can use it.
 */
export const igluServerRoutes: FastifyPluginAsyncTypebox<{ repository: IgluRepository }> = async (
  app,
  { repository },
) => {
  /**
   * The environment read, and which of its schemas the reader may read: every one (a Console key or
   * token), the public ones and those of its prefix (an Iglu key), or the public ones (anonymous).
   */
  const scope = (request: {
    principal: Principal | null
    params: { organizationId: string; env: 'dev' | 'prod' }
  }) => {
    const readable = schemasReadableBy(request.principal)
    return {
      organizationId:
        request.principal?.organizationId ?? request.params.organizationId.toLowerCase(),
      env: request.params.env === 'dev' ? ('DEV' as const) : ('PROD' as const),
      readable,
    }
  }
  /** `repr`, where `metadata=1` (or true) asks for Iglu Server's meta representation. */
  const reprOf = (
    query: { repr?: ReprName | undefined; metadata?: string | undefined },
    fallback: ReprName,
  ): ReprName =>
    query.repr ?? (query.metadata === '1' || query.metadata === 'true' ? 'meta' : fallback)

  /**
   * A list in `repr`: URIs without reading a schema; the schemas' texts, read a page at a time, with
   * a turn of the event loop after each REPRESENTED_BYTES moved; for `meta`, each schema's creation
   * time too (one more query).
   */
  const represented = async (
    organizationId: string,
    env: 'DEV' | 'PROD',
    keys: readonly PublishedKey[],
    repr: ReprName,
  ) => {
    if (repr === 'uri') return jsonBody(keys.map((key) => JSON.stringify(key.uri)))
    const created =
      repr === 'meta' ? await repository.creationTimes(organizationId, env, keys) : null
    const texts: string[] = []
    let sinceTurn = 0
    for (const schema of await repository.withTexts(keys)) {
      if (sinceTurn > REPRESENTED_BYTES) {
        await otherWork()
        sinceTurn = 0
      }
      texts.push(represent(schema, repr, created?.get(schema.uri)))
      sinceTurn += schema.text.length
    }
    return jsonBody(texts)
  }

  app.get(
    '/schemas',
    {
      schema: {
        summary: 'Every schema of the environment (always 200)',
        tags: IGLU_TAGS,
        security: IGLU_SECURITY,
        params: Type.Object(RepoParams),
        querystring: ListQuery,
        response: listResponse,
      },
    },
    async (request, reply) => {
      const { organizationId, env, readable } = scope(request)
      const all = await repository.listKeys(organizationId, env, { readable })
      const repr = reprOf(request.query, 'uri')
      return reply.type(JSON_TYPE).send(await represented(organizationId, env, all, repr))
    },
  )

  app.get(
    '/schemas/:vendor',
    {
      schema: {
        summary: "A vendor's schemas (404 when none)",
        tags: IGLU_TAGS,
        security: IGLU_SECURITY,
        params: Type.Object({ ...RepoParams, vendor: Type.String() }),
        querystring: ListQuery,
        response: listResponse,
      },
    },
    async (request, reply) => {
      const { organizationId, env, readable } = scope(request)
      const found = await repository.listKeysOrFail(organizationId, env, {
        vendor: request.params.vendor,
        readable,
      })
      const repr = reprOf(request.query, 'uri')
      return reply.type(JSON_TYPE).send(await represented(organizationId, env, found, repr))
    },
  )

  app.get(
    '/schemas/:vendor/:name',
    {
      schema: {
        summary: 'The versions of one schema (404 when none)',
        tags: IGLU_TAGS,
        security: IGLU_SECURITY,
        params: Type.Object({ ...RepoParams, vendor: Type.String(), name: Type.String() }),
        querystring: ListQuery,
        response: listResponse,
      },
    },
    async (request, reply) => {
      const { organizationId, env, readable } = scope(request)
      const { vendor, name } = request.params
      const found = await repository.listKeysOrFail(organizationId, env, { vendor, name, readable })
      const repr = reprOf(request.query, 'uri')
      return reply.type(JSON_TYPE).send(await represented(organizationId, env, found, repr))
    },
  )

  app.get(
    '/schemas/:vendor/:name/:format/:version',
    {
      schema: {
        summary:
          'One schema by SchemaVer (default repr canonical), or with a bare MODEL the list of that model (default repr uri)',
        tags: IGLU_TAGS,
        security: IGLU_SECURITY,
        params: IGLU_SCHEMA_PARAMS,
        querystring: ListQuery,
        response: { 200: Type.Unknown(), ...errors },
      },
    },
    async (request, reply) => {
      const { organizationId, env, readable } = scope(request)
      const { vendor, name, format, version } = request.params
      if (MODEL.test(version)) {
        const found = await repository.listKeysOrFail(organizationId, env, {
          vendor,
          name,
          format,
          model: Number(version),
          readable,
        })
        const repr = reprOf(request.query, 'uri')
        return reply.type(JSON_TYPE).send(await represented(organizationId, env, found, repr))
      }
      const schemaVer = parseSchemaVer(version)
      if (schemaVer === null) throw new SchemaNotFoundError()
      const found = await repository.get(
        organizationId,
        env,
        { vendor, name, format, version: schemaVer },
        readable,
      )
      // Iglu Server answers JSON everywhere but health: the URI alone is a JSON string.
      if (request.query.repr === 'uri')
        return reply.type('application/json; charset=utf-8').send(JSON.stringify(found.uri))
      const repr = reprOf(request.query, 'canonical')
      const created =
        repr === 'meta'
          ? (await repository.creationTimes(organizationId, env, [found])).get(found.uri)
          : undefined
      return reply.type(JSON_TYPE).send(represent(found, repr, created))
    },
  )
}
