import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ErrorBodyRef } from '../http/index.js'
import { formatSchemaVer } from '../iglu/index.js'
import { packageVersion } from '../package-version.js'
import type { IgluRepository } from './iglu-repository.js'
import { IgluKeyRequiredError } from './registry.errors.js'
import { igluReport, IgluReportItem, NOT_CONFORMING } from './iglu-lint-report.js'
import { reportOf, type SchemaDocumentCheck } from './schema-validation.js'
import {
  IGLU_BASE_PARAMS,
  IGLU_SECURITY,
  IGLU_TAGS,
  schemasReadableBy,
} from './iglu-route-schemas.js'

const RepoParams = Type.Object(IGLU_BASE_PARAMS)

/**
 * Iglu Server's service routes on `/iglu/{organizationId}/{dev|prod}/api`: schema validation
 * (`/validation/validate/schema/jsonschema`, any key of the organization) and the server's
 * description (`/meta/server`). Writes are in iglu-write.routes.ts.
 */
export const igluServiceRoutes: FastifyPluginAsyncTypebox<{
  repository: IgluRepository
  checkDocument: (data: unknown) => Promise<SchemaDocumentCheck>
}> = async (app, { repository, checkDocument }) => {
  app.post(
    '/validation/validate/schema/jsonschema',
    {
      schema: {
        summary:
          'Validate a self-describing JSON Schema as the registry does (any key; 403 without one)',
        tags: IGLU_TAGS,
        security: IGLU_SECURITY,
        params: RepoParams,
        response: {
          200: Type.Object({
            message: Type.String(),
            report: Type.Optional(Type.Array(IgluReportItem)),
          }),
          400: ErrorBodyRef,
          403: ErrorBodyRef,
          413: ErrorBodyRef,
          503: ErrorBodyRef,
        },
      },
    },
    async (request) => {
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
              await repository.list(principal.organizationId, env, {
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
