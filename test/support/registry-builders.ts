import { SELF_DESC_METASCHEMA_URI } from '../../src/iglu/self-describing.js'
import type { ApiClient } from './api-client.js'

/** A self-describing object schema with these properties, all described so lint stays quiet. */
export function objectSchema(
  vendor: string,
  name: string,
  version: string,
  properties: Record<string, object>,
  extra: Record<string, unknown> = {},
) {
  return {
    $schema: SELF_DESC_METASCHEMA_URI,
    self: { vendor, name, format: 'jsonschema', version },
    description: `${name} ${version}`,
    type: 'object',
    properties: Object.fromEntries(
      Object.entries(properties).map(([key, value]) => [key, { description: key, ...value }]),
    ),
    additionalProperties: false,
    ...extra,
  }
}

/** com.acme/search at `version`: a required `term`, and these other properties. */
export const searchSchema = (version: string, extra: Record<string, unknown> = {}) => ({
  $schema: SELF_DESC_METASCHEMA_URI,
  self: { vendor: 'com.acme', name: 'search', format: 'jsonschema', version },
  description: 'A search',
  type: 'object',
  properties: { term: { type: 'string', maxLength: 100, description: 'the term' }, ...extra },
  required: ['term'],
  additionalProperties: false,
})

/** Validates a schema and deploys it to DEV (a patch when `patch` is set); fails loudly if the registry refuses. */
export async function deployToDev(
  client: ApiClient,
  schema: { self: { vendor: string; name: string; version: string } },
  options: { patch?: boolean; meta?: object } = {},
) {
  const validation = await client.call('POST', '/data-structures/v1/validation-requests', {
    ...(options.meta === undefined ? {} : { meta: options.meta }),
    data: schema,
  })
  if (validation.body?.success !== true)
    throw new Error(`validation failed: ${JSON.stringify(validation.body)}`)
  const { vendor, name, version } = schema.self
  const deployment = await client.call(
    'POST',
    `/data-structures/v1/deployment-requests${options.patch === true ? '?patch=true' : ''}`,
    {
      source: 'VALIDATED',
      target: 'DEV',
      vendor,
      name,
      format: 'jsonschema',
      version,
      message: `deploy ${version}`,
    },
  )
  if (deployment.status !== 201 || deployment.body?.success !== true)
    throw new Error(`deployment failed: ${JSON.stringify(deployment.body)}`)
}

/** Deploys a version already in DEV to PROD too (a published event specification needs it there). */
export async function promoteToProd(
  client: ApiClient,
  schema: { self: { vendor: string; name: string; version: string } },
) {
  const { vendor, name, version } = schema.self
  const deployment = await client.call('POST', '/data-structures/v1/deployment-requests', {
    source: 'DEV',
    target: 'PROD',
    vendor,
    name,
    format: 'jsonschema',
    version,
    message: `promote ${version}`,
  })
  if (deployment.status !== 201 || deployment.body?.success !== true)
    throw new Error(`promotion failed: ${JSON.stringify(deployment.body)}`)
}
