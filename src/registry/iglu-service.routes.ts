import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ErrorBodyRef } from '../http/index.js'
import { formatSchemaVer } from '../iglu/index.js'
import { packageVersion } from '../package-version.js'
import type { IgluRepository } from './iglu-repository.js'
import { IgluKeyRequiredError } from './registry.errors.js'
import { reportMessageParts, reportOf, type SchemaDocumentCheck } from './schema-validation.js'

const tags = ['iglu server']
const security: Array<Record<string, string[]>> = [{ bearer: [] }, { igluApiKey: [] }]
const RepoParams = Type.Object({
  organizationId: Type.String(),
  env: Type.Union([Type.Literal('dev'), Type.Literal('prod')]),
})
const ReportItem = Type.Object({
  message: Type.String(),
  level: Type.Union([Type.Literal('ERROR'), Type.Literal('WARNING'), Type.Literal('INFO')]),
  pointer: Type.String(),
})

/** A registry message, `"/pointer: text [rule]"`, as an item of Iglu Server's lint report. */
function reportItem(message: string, level: 'ERROR' | 'WARNING' | 'INFO') {
  const { pointer, text, rule } = reportMessageParts(message)
  return { message: rule === null ? text : `${text} [${rule}]`, level, pointer }
}

/**
 * Iglu Server's service routes on `/iglu/{organizationId}/{dev|prod}/api`: schema validation
 * (`/validation/validate/schema/jsonschema`, any key of the organization) and the server's
 * description (`/meta/server`). Writes are not served here yet.
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
        tags,
        security,
        params: RepoParams,
        response: {
          200: Type.Object({
            message: Type.String(),
            report: Type.Optional(Type.Array(ReportItem)),
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
      const items = [
        ...report.errors.map((m) => reportItem(m, 'ERROR')),
        ...report.warnings.map((m) => reportItem(m, 'WARNING')),
        ...report.info.map((m) => reportItem(m, 'INFO')),
      ]
      if (report.errors.length > 0 || report.key === null)
        return {
          message: 'The schema does not conform to a JSON Schema v4 specification',
          report: items,
        }
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
        tags,
        security,
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
      const schemaCount =
        principal === null ? 0 : (await repository.list(principal.organizationId, env, {})).length
      return {
        version: packageVersion(),
        // Any key reads every schema of its organization; writes through Iglu are not served yet.
        authInfo: {
          vendor: principal === null ? '' : '*',
          schema: principal === null ? null : 'READ',
          key: [],
        },
        database: 'postgres',
        schemaCount,
        debug: false,
        // DEV versions may be patched (through the Console API); PROD versions never change.
        patchesAllowed: env === 'DEV',
      }
    },
  )
}
