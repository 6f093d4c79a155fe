import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { requirePrincipal } from '../auth/index.js'
import { ErrorBodyRef } from '../http/index.js'
import { objectMembers, objectText, parseSchemaVer } from '../iglu/index.js'
import type { IgluRepository, PublishedSchema } from './iglu-repository.js'
import { NoSchemasAvailableError, SchemaNotFoundError } from './registry.errors.js'

const tags = ['iglu server']
const security: Array<Record<string, string[]>> = [{ bearer: [] }, { igluApiKey: [] }]
const Repr = Type.Union([Type.Literal('uri'), Type.Literal('canonical'), Type.Literal('meta')])
const RepoParams = {
  organizationId: Type.String(),
  env: Type.Union([Type.Literal('dev'), Type.Literal('prod')]),
}
const errors = { 400: ErrorBodyRef, 401: ErrorBodyRef, 403: ErrorBodyRef, 404: ErrorBodyRef }
const listResponse = { 200: Type.Array(Type.Unknown()), ...errors }
const MODEL = /^(0|[1-9][0-9]{0,8})$/

type ReprName = 'uri' | 'canonical' | 'meta'

/**
 * A schema as Iglu Server represents it, as JSON text: its members moved (`$schema` and `self`
 * first, or `self` and `metadata`), each value as it was written.
 */
function represent(schema: PublishedSchema, repr: ReprName): string {
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
  const at = schema.deployedAt.toISOString()
  const metadata = JSON.stringify({ createdAt: at, updatedAt: at, isPublic: false })
  return repr === 'canonical'
    ? objectText([...schemaMember, ...self, ...members])
    : objectText([...self, ['metadata', metadata], ...members])
}

const JSON_TYPE = 'application/json; charset=utf-8'
/** A JSON array of items already written as JSON. */
const jsonArrayOf = (texts: readonly string[]) => `[${texts.join(',')}]`

/** `.../api/meta/health`: `OK` as text, without credentials, as Iglu Server answers load balancers. */
export const igluHealthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/meta/health',
    {
      schema: {
        summary: 'Iglu Server health (no credentials needed)',
        tags,
        params: Type.Object(RepoParams),
      },
    },
    async (_request, reply) => reply.type('text/plain').send('OK'),
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
  /** The repository the reader may read; null for an anonymous one, who can read none. */
  const scope = (request: {
    principal: Parameters<typeof requirePrincipal>[0]
    params: { env: 'dev' | 'prod' }
  }) =>
    request.principal === null
      ? null
      : {
          organizationId: requirePrincipal(request.principal, 'read schemas').organizationId,
          env: request.params.env === 'dev' ? ('DEV' as const) : ('PROD' as const),
        }

  app.get(
    '/schemas',
    {
      schema: {
        summary: 'Every schema of the environment (always 200)',
        tags,
        security,
        params: Type.Object(RepoParams),
        querystring: Type.Object({ repr: Type.Optional(Repr) }),
        response: listResponse,
      },
    },
    async (request, reply) => {
      const readable = scope(request)
      if (readable === null) return []
      const { organizationId, env } = readable
      const all = await repository.list(organizationId, env, {})
      return reply
        .type(JSON_TYPE)
        .send(jsonArrayOf(all.map((s) => represent(s, request.query.repr ?? 'uri'))))
    },
  )

  app.get(
    '/schemas/:vendor',
    {
      schema: {
        summary: "A vendor's schemas (404 when none)",
        tags,
        security,
        params: Type.Object({ ...RepoParams, vendor: Type.String() }),
        querystring: Type.Object({ repr: Type.Optional(Repr) }),
        response: listResponse,
      },
    },
    async (request, reply) => {
      const readable = scope(request)
      if (readable === null) throw new NoSchemasAvailableError()
      const { organizationId, env } = readable
      const found = await repository.listOrFail(organizationId, env, {
        vendor: request.params.vendor,
      })
      return reply
        .type(JSON_TYPE)
        .send(jsonArrayOf(found.map((s) => represent(s, request.query.repr ?? 'uri'))))
    },
  )

  app.get(
    '/schemas/:vendor/:name',
    {
      schema: {
        summary: 'The versions of one schema (404 when none)',
        tags,
        security,
        params: Type.Object({ ...RepoParams, vendor: Type.String(), name: Type.String() }),
        querystring: Type.Object({ repr: Type.Optional(Repr) }),
        response: listResponse,
      },
    },
    async (request, reply) => {
      const readable = scope(request)
      if (readable === null) throw new NoSchemasAvailableError()
      const { organizationId, env } = readable
      const { vendor, name } = request.params
      const found = await repository.listOrFail(organizationId, env, { vendor, name })
      return reply
        .type(JSON_TYPE)
        .send(jsonArrayOf(found.map((s) => represent(s, request.query.repr ?? 'uri'))))
    },
  )

  app.get(
    '/schemas/:vendor/:name/:format/:version',
    {
      schema: {
        summary:
          'One schema by SchemaVer (default repr canonical), or with a bare MODEL the list of that model (default repr uri)',
        tags,
        security,
        params: Type.Object({
          ...RepoParams,
          vendor: Type.String(),
          name: Type.String(),
          format: Type.String(),
          version: Type.String(),
        }),
        querystring: Type.Object({ repr: Type.Optional(Repr) }),
        response: { 200: Type.Unknown(), ...errors },
      },
    },
    async (request, reply) => {
      const readable = scope(request)
      const { vendor, name, format, version } = request.params
      if (readable === null) {
        if (MODEL.test(version)) throw new NoSchemasAvailableError()
        throw new SchemaNotFoundError()
      }
      const { organizationId, env } = readable
      if (MODEL.test(version)) {
        const found = await repository.listOrFail(organizationId, env, {
          vendor,
          name,
          format,
          model: Number(version),
        })
        return reply
          .type(JSON_TYPE)
          .send(jsonArrayOf(found.map((s) => represent(s, request.query.repr ?? 'uri'))))
      }
      const schemaVer = parseSchemaVer(version)
      if (schemaVer === null) throw new SchemaNotFoundError()
      const found = await repository.get(organizationId, env, {
        vendor,
        name,
        format,
        version: schemaVer,
      })
      // Iglu Server answers JSON everywhere but health: the URI alone is a JSON string.
      if (request.query.repr === 'uri')
        return reply.type('application/json; charset=utf-8').send(JSON.stringify(found.uri))
      return reply.type(JSON_TYPE).send(represent(found, request.query.repr ?? 'canonical'))
    },
  )
}
