import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { requirePrincipal } from '../auth/index.js'
import type { CompatibilityChecker } from '../compatibility/index.js'
import type { DesignSchemaChecker } from '../iglu/index.js'
import { ErrorBodyRef } from '../http/index.js'
import { checkEventSpec } from './event-spec-compatibility.js'
import { sourceResolver, type SourceCatalog } from './scenario-checks.js'

const tags = ['compatibility']
const security = [{ bearer: [] }]
const errors = { 400: ErrorBodyRef, 401: ErrorBodyRef, 403: ErrorBodyRef }
const Outcome = Type.Union([
  Type.Literal('compatible'),
  Type.Literal('incompatible'),
  Type.Literal('undecidable'),
])
const OrgParams = Type.Object({ organizationId: Type.String() })
const JsonSchemaObject = Type.Object({}, { additionalProperties: true })
const Source = Type.Object(
  { source: Type.String({ maxLength: 1000 }), schema: Type.Optional(Type.Unknown()) },
  { additionalProperties: true },
)

/** The compatibility engine over HTTP: raw schema pairs, and snowplow-cli's event-spec check. */
export const compatibilityChecksRoutes: FastifyPluginAsyncTypebox<{
  /** The sources specifications may name: the registry's data structures, and public schemas. */
  sources: SourceCatalog
  checker: CompatibilityChecker
  designSchema: DesignSchemaChecker
}> = async (app, { sources, checker, designSchema }) => {
  app.post(
    '/compatibility-checks',
    {
      schema: {
        summary: 'Is every value valid under candidate also valid under reference?',
        tags,
        security,
        params: OrgParams,
        // Draft-04 schemas are objects: anything else is a malformed request, not a verdict.
        body: Type.Object({ candidate: JsonSchemaObject, reference: JsonSchemaObject }),
        response: {
          200: Type.Object({
            outcome: Outcome,
            witness: Type.Optional(Type.Unknown()),
            path: Type.Optional(Type.String()),
            schemaPath: Type.Optional(Type.String()),
            reasons: Type.Array(
              Type.Object({
                code: Type.String(),
                schema: Type.String(),
                pointer: Type.String(),
                detail: Type.String(),
              }),
            ),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      requirePrincipal(request.principal, 'check compatibility')
      return checker.check(request.body.candidate, request.body.reference)
    },
  )

  app.post(
    '/event-specs/v1/compatibility',
    {
      schema: {
        summary: "An event specification's schemas against their sources (snowplow-cli)",
        tags,
        security,
        params: OrgParams,
        body: Type.Object({
          spec: Type.Object(
            {
              event: Type.Optional(Source),
              entities: Type.Optional(
                Type.Object(
                  { tracked: Type.Optional(Type.Array(Source, { maxItems: 100 })) },
                  { additionalProperties: true },
                ),
              ),
            },
            { additionalProperties: true },
          ),
        }),
        response: {
          200: Type.Object({
            status: Outcome,
            sources: Type.Array(
              Type.Object({
                source: Type.String(),
                status: Outcome,
                properties: Type.Record(Type.String(), Outcome),
              }),
            ),
            message: Type.String(),
          }),
          ...errors,
          422: ErrorBodyRef,
        },
      },
    },
    async (request) => {
      const { organizationId } = requirePrincipal(request.principal, 'check compatibility')
      const resolve = sourceResolver(sources, organizationId)
      return checkEventSpec(resolve, checker, designSchema, request.body.spec)
    },
  )
}
