import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ErrorBodyRef } from '../http/index.js'
import { formatSchemaVer, parseIgluUri } from '../iglu/index.js'
import { isJsonObject } from '../shared/index.js'
import { packageVersion } from '../package-version.js'
import type { IgluRepository } from './iglu-repository.js'
import {
  IgluKeyRequiredError,
  NotSelfDescribingInstanceError,
  SchemaNotFoundError,
} from './registry.errors.js'
import { igluReport, IgluReportItem, NOT_CONFORMING } from './iglu-lint-report.js'
import { reportOf, type SchemaDocumentCheck } from './schema-validation.js'
import {
  IGLU_BASE_PARAMS,
  IGLU_SCHEMA_PARAMS,
  IGLU_SECURITY,
  IGLU_TAGS,
  schemasReadableBy,
} from './iglu-route-schemas.js'

const RepoParams = Type.Object(IGLU_BASE_PARAMS)

/** One problem of an instance, as the validator reports it. */
interface DataProblem {
  readonly message: string
  readonly path?: string | undefined
  readonly keyword?: string | undefined
  readonly targets?: readonly string[] | undefined
}

/**
 * An instance's verdict against a schema, worked out off the event loop (the worker pool): valid,
 * or invalid with the validator's problems (none for a failure of another kind).
 */
export type InstanceCheck = (
  schema: Record<string, unknown>,
  data: unknown,
) => Promise<{ readonly kind: 'valid' } | { readonly kind: 'invalid'; readonly error: object }>

/** The validator's problems of a failure, when it has them (a failure to resolve has none). */
const problemsOf = (error: object): readonly DataProblem[] =>
  'dataReports' in error && Array.isArray(error.dataReports)
    ? (error.dataReports as DataProblem[])
    : []

const SchemaVerdict = Type.Object({
  message: Type.String(),
  report: Type.Optional(Type.Array(IgluReportItem)),
})
const schemaValidationResponses = {
  200: SchemaVerdict,
  400: ErrorBodyRef,
  403: ErrorBodyRef,
  413: ErrorBodyRef,
  503: ErrorBodyRef,
}

/**
 * Iglu Server's service routes on `/iglu/{organizationId}/{dev|prod}/api`: schema validation
 * (`/validation/validate/schema/jsonschema`, any key of the organization) and the server's
 * description (`/meta/server`). Writes are in iglu-write.routes.ts.
 */
export const igluServiceRoutes: FastifyPluginAsyncTypebox<{
  repository: IgluRepository
  checkDocument: (data: unknown) => Promise<SchemaDocumentCheck>
  checkInstance: InstanceCheck
}> = async (app, { repository, checkDocument, checkInstance }) => {
  const validateSchema = async (request: { principal: unknown; body: unknown }) => {
    if (request.principal === null) throw new IgluKeyRequiredError()
    const report = reportOf(await checkDocument(request.body))
    const items = igluReport(report)
    if (report.errors.length > 0 || report.key === null)
      return { message: NOT_CONFORMING, report: items }
    const { vendor, name, format, version } = report.key
    return {
      message: `The schema provided is a valid self-describing iglu:${vendor}/${name}/${format}/${formatSchemaVer(version)} schema`,
      ...(items.length === 0 ? {} : { report: items }),
    }
  }
  app.post(
    '/validation/validate/schema/jsonschema',
    {
      schema: {
        summary:
          'Validate a self-describing JSON Schema as the registry does (any key; 403 without one)',
        tags: IGLU_TAGS,
        security: IGLU_SECURITY,
        params: RepoParams,
        response: schemaValidationResponses,
      },
    },
    validateSchema,
  )
  // Iglu Server's deprecated alias: the schema in the body is validated; the path names it.
  app.post(
    '/schemas/validate/:vendor/:name/:format/:version',
    {
      schema: {
        summary: 'Deprecated alias of /validation/validate/schema/jsonschema',
        tags: IGLU_TAGS,
        security: IGLU_SECURITY,
        params: IGLU_SCHEMA_PARAMS,
        response: schemaValidationResponses,
      },
    },
    validateSchema,
  )

  app.post(
    '/validation/validate/instance',
    {
      schema: {
        summary:
          'Validate self-describing data against its schema in this environment (a key that may read it)',
        tags: IGLU_TAGS,
        security: IGLU_SECURITY,
        params: RepoParams,
        response: {
          200: Type.Object({
            message: Type.String(),
            report: Type.Optional(
              Type.Array(
                Type.Object({
                  message: Type.String(),
                  path: Type.Optional(Type.String()),
                  keyword: Type.Optional(Type.String()),
                  targets: Type.Optional(Type.Array(Type.String())),
                }),
              ),
            ),
          }),
          400: ErrorBodyRef,
          404: ErrorBodyRef,
          413: ErrorBodyRef,
          503: ErrorBodyRef,
        },
      },
    },
    async (request) => {
      const { principal, body } = request
      // As Iglu Server: without a key of the organization, no schema is found.
      if (principal === null) throw new SchemaNotFoundError()
      if (!isJsonObject(body) || typeof body.schema !== 'string' || !('data' in body))
        throw new NotSelfDescribingInstanceError()
      const key = parseIgluUri(body.schema)
      if (key === null) throw new NotSelfDescribingInstanceError()
      const env = request.params.env === 'dev' ? 'DEV' : 'PROD'
      const schema = await repository.get(
        principal.organizationId,
        env,
        key,
        schemasReadableBy(principal),
      )
      const verdict = await checkInstance(schema.schema, body.data)
      if (verdict.kind === 'valid') return { message: `Instance is valid ${schema.uri}` }
      return {
        message: 'The data for a field instance is invalid against its schema',
        report: problemsOf(verdict.error).map((problem) => ({
          message: problem.message,
          ...(problem.path === undefined ? {} : { path: problem.path }),
          ...(problem.keyword === undefined ? {} : { keyword: problem.keyword }),
          ...(problem.targets === undefined ? {} : { targets: [...problem.targets] }),
        })),
      }
    },
  )

  app.get(
    '/meta/server',
    {
      schema: {
        summary: "Iglu Server's description of itself, for the caller",
        tags: IGLU_TAGS,
        security: IGLU_SECURITY,
        params: RepoParams,
        response: {
          200: Type.Object({
            version: Type.String(),
            authInfo: Type.Object({
              vendor: Type.String(),
              schema: Type.Union([Type.String(), Type.Null()]),
              key: Type.Array(Type.String()),
            }),
            database: Type.String(),
            schemaCount: Type.Integer(),
            debug: Type.Boolean(),
            patchesAllowed: Type.Boolean(),
          }),
        },
      },
    },
    async (request) => {
      const env = request.params.env === 'dev' ? 'DEV' : 'PROD'
      const principal = request.principal
      const scope = principal?.igluScope ?? null
      const schemaCount =
        principal === null
          ? 0
          : (
              await repository.listKeys(principal.organizationId, env, {
                readable: schemasReadableBy(principal),
              })
            ).length
      return {
        version: packageVersion(),
        // Iglu Server's words for what the key may do: read, create schemas, create keys.
        authInfo:
          principal === null
            ? { vendor: '', schema: null, key: [] }
            : scope !== null
              ? {
                  vendor: scope.vendorPrefix,
                  schema: scope.permission === 'write' ? 'CREATE' : 'READ',
                  key: [],
                }
              : principal.isAdmin
                ? { vendor: '*', schema: 'CREATE_VENDOR', key: ['CREATE', 'DELETE'] }
                : { vendor: '*', schema: env === 'DEV' ? 'CREATE' : 'READ', key: [] },
        database: 'postgres',
        schemaCount,
        debug: false,
        // DEV versions may be patched (through the Console API); PROD versions never change.
        patchesAllowed: env === 'DEV',
      }
    },
  )
}
