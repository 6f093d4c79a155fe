import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { IgluAnonymousWriteError } from '../auth/index.js'
import { BooleanQuery, ErrorBodyRef, jsonTextOf, queryFlag } from '../http/index.js'
import { parseSchemaVer, schemaKeyProblems } from '../iglu/index.js'
import { IgluReportItem, NOT_CONFORMING } from './iglu-lint-report.js'
import type { IgluWrite, IgluWriteOutcome, IgluWrites } from './iglu-publish.js'
import { InvalidSchemaKeyError } from './registry.errors.js'
import {
  IGLU_BASE_PARAMS,
  IGLU_SCHEMA_PARAMS,
  IGLU_SECURITY,
  IGLU_TAGS,
} from './iglu-route-schemas.js'

const RepoParams = IGLU_BASE_PARAMS
const WriteQuery = Type.Object({
  isPublic: Type.Optional(
    BooleanQuery('Readable without a key from this environment (default false)'),
  ),
  allowMisversioned: Type.Optional(
    BooleanQuery('PROD only: write a version whose number understates its change all the same'),
  ),
})
const Written = Type.Object({
  message: Type.String(),
  updated: Type.Boolean(),
  location: Type.String(),
  status: Type.Integer(),
})
const Refused = Type.Object({
  message: Type.String(),
  report: Type.Optional(Type.Array(IgluReportItem)),
  uriSchemaKey: Type.Optional(Type.String()),
  payloadSchemaKey: Type.Optional(Type.String()),
})
const responses = {
  200: Written,
  201: Written,
  400: Type.Union([Refused, ErrorBodyRef]),
  401: ErrorBodyRef,
  403: ErrorBodyRef,
  409: ErrorBodyRef,
  413: ErrorBodyRef,
  422: ErrorBodyRef,
  503: ErrorBodyRef,
}

/** Iglu Server's answer for each outcome, with its status. */
function answer(outcome: IgluWriteOutcome) {
  switch (outcome.kind) {
    case 'written':
      return outcome.created
        ? ([
            201,
            { message: 'Schema created', updated: false, location: outcome.uri, status: 201 },
          ] as const)
        : ([
            200,
            { message: 'Schema updated', updated: true, location: outcome.uri, status: 200 },
          ] as const)
    case 'undecodable':
      return [400, { message: 'Cannot decode JSON schema' }] as const
    case 'mismatch':
      return [
        400,
        {
          uriSchemaKey: outcome.uriSchemaKey,
          payloadSchemaKey: outcome.payloadSchemaKey,
          message: 'Mismatch: the schema metadata does not match the payload and URI',
        },
      ] as const
    case 'invalid':
      return [400, { message: NOT_CONFORMING, report: outcome.report }] as const
  }
}

/**
 * The write side of Iglu Server's API on `/iglu/{organizationId}/{dev|prod}/api` (igluctl's
 * `static push`, self-hosted pipelines): `PUT /schemas/{vendor}/{name}/{format}/{version}` and
 * `POST /schemas`, into the same registry and history as the Console API's deployments.
 */
export const igluWriteRoutes: FastifyPluginAsyncTypebox<{
  writes: IgluWrites
}> = async (app, { writes }) => {
  const write = async (
    request: {
      principal: IgluWrite['principal'] | null
      params: { organizationId: string; env: 'dev' | 'prod' }
      query: { isPublic?: string | undefined; allowMisversioned?: string | undefined }
      body: unknown
    },
    text: string | null,
    pathKey: IgluWrite['pathKey'],
  ) => {
    if (request.principal === null) throw new IgluAnonymousWriteError()
    return answer(
      await writes.write({
        organizationId: request.principal.organizationId,
        env: request.params.env === 'dev' ? 'DEV' : 'PROD',
        principal: request.principal,
        body: request.body,
        bodyText: text,
        pathKey,
        isPublic: queryFlag(request.query.isPublic, false),
        allowMisversioned: queryFlag(request.query.allowMisversioned, false),
      }),
    )
  }

  app.put(
    '/schemas/:vendor/:name/:format/:version',
    {
      schema: {
        summary:
          'Write a schema as Iglu Server does (body: the self-describing schema, or the schema alone): 201 created, 200 updated (DEV only), 400 with the lint report, 401 without a key, 403 without write permission, 409 on a PROD version',
        tags: IGLU_TAGS,
        security: IGLU_SECURITY,
        params: IGLU_SCHEMA_PARAMS,
        querystring: WriteQuery,
        body: Type.Unknown(),
        response: responses,
      },
    },
    async (request, reply) => {
      const { vendor, name, format, version } = request.params
      const schemaVer = parseSchemaVer(version)
      const problems = schemaKeyProblems({ vendor, name, format, version })
      // A path that names no schema cannot be written: 400 naming what is wrong, as Iglu Server's
      // path parser answers (a read of such a path is 404, "The schema is not found").
      if (schemaVer === null || problems.length > 0)
        throw new InvalidSchemaKeyError(
          problems.length > 0
            ? problems
            : [`version: "${version.slice(0, 50)}" is not a SchemaVer (MODEL-REVISION-ADDITION)`],
        )
      const [status, body] = await write(request, jsonTextOf(request), {
        vendor,
        name,
        format,
        version: schemaVer,
      })
      return reply.code(status).send(body)
    },
  )

  app.post(
    '/schemas',
    {
      schema: {
        summary:
          'Write a self-describing schema, named by its own self (answers as PUT; a body without self is 400)',
        tags: IGLU_TAGS,
        security: IGLU_SECURITY,
        params: Type.Object(RepoParams),
        querystring: WriteQuery,
        body: Type.Unknown(),
        response: responses,
      },
    },
    async (request, reply) => {
      const [status, body] = await write(request, jsonTextOf(request), null)
      return reply.code(status).send(body)
    },
  )
}
