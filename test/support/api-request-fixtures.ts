import { expect } from 'vitest'
import { emptyEvent, type EnrichedEvent } from '../../src/inspection/pipeline/canonical-event.js'
import {
  parseApiRequestConfig,
  type ApiRequestConfig,
} from '../../src/inspection/pipeline/enrichments/api-request.js'

// The API request enrichment's unit tests share these: a configuration and an event.

export const SCHEMA_KEY =
  'iglu:com.snowplowanalytics.snowplow.enrichments/api_request_enrichment_config/jsonschema/1-0-2'
export const OUTPUT = 'iglu:com.acme/user/jsonschema/1-0-0'
export const SESSION = 'iglu:com.acme/client_session/jsonschema/1-0-0'
export const ENRICHMENT = { schemaKey: SCHEMA_KEY, identifier: 'api-request' }

export function params(over: Record<string, unknown> = {}, http: Record<string, unknown> = {}) {
  return {
    inputs: [
      { key: 'user', pojo: { field: 'user_id' } },
      {
        key: 'client',
        json: {
          field: 'contexts',
          schemaCriterion: 'iglu:com.acme/client_session/jsonschema/1-*-*',
          jsonPath: '$.client',
        },
      },
    ],
    api: {
      http: {
        method: 'GET',
        uri: 'http://api.acme.com/users/{{user}}?client={{ client }}',
        timeout: 2000,
        authentication: {},
        ...http,
      },
    },
    outputs: [{ schema: OUTPUT, json: { jsonPath: '$.record' } }],
    cache: { size: 10, ttl: 60 },
    ...over,
  }
}

export function parsed(over: Record<string, unknown> = {}, http: Record<string, unknown> = {}) {
  const problems: string[] = []
  const config = parseApiRequestConfig(SCHEMA_KEY, params(over, http), problems)
  expect(problems).toEqual([])
  if (config === null) throw new Error('no config')
  return config
}

export function event(fields: {
  user?: string
  session?: unknown
  extra?: Partial<EnrichedEvent['fields']>
}) {
  const e = emptyEvent()
  e.fields.user_id = fields.user ?? null
  Object.assign(e.fields, fields.extra ?? {})
  if (fields.session !== undefined) e.contexts = [{ schema: SESSION, data: fields.session }]
  return e
}

export function withOutputs(...paths: string[]): ApiRequestConfig {
  return parsed({ outputs: paths.map((jsonPath) => ({ schema: OUTPUT, json: { jsonPath } })) })
}

export const notFound = (path: string, answer: string) =>
  `API Request enrichment:Value not found Error: no values were found by JSON Path [${path}] in [${answer}]`
