// Registry: GET .../data-structures/v1/{hash}/versions/{v} with a bearer token (guard: JWT and API
// key checked) against a bare route answering the same JSON without auth, in another process with
// the same Fastify settings. Also the p50 of a validation request for a 50-property schema.
// Usage: node bench/registry.mjs [--duration 10] [--rounds 5] [--connections 10] [--warmup 2]
import { createHash } from 'node:crypto'
import {
  BOOTSTRAP,
  accessToken,
  deployToDev,
  startBaseline,
  startFloe,
} from './support/processes.mjs'
import { alternate, load, option } from './support/load.mjs'

const DURATION = option('duration', 10)
const ROUNDS = option('rounds', 5)
const CONNECTIONS = option('connections', 10)
const logLevel = process.env.BENCH_LOG_LEVEL ?? 'info'

const kinds = [
  { type: 'string', maxLength: 255 },
  { type: 'integer', minimum: 0, maximum: 1000000 },
  { type: ['number', 'null'] },
  { type: 'boolean' },
  { type: 'string', format: 'date-time' },
]
const wide = (version) => ({
  $schema:
    'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#',
  self: { vendor: 'com.floe.bench', name: 'order', format: 'jsonschema', version },
  description: 'An order with fifty properties',
  type: 'object',
  properties: Object.fromEntries(
    Array.from({ length: 50 }, (_, i) => [
      `field_${i}`,
      { ...kinds[i % kinds.length], description: `field ${i}` },
    ]),
  ),
  required: ['field_0', 'field_1'],
  additionalProperties: false,
})

const floe = await startFloe({ logLevel })
try {
  const token = await accessToken(floe.url)
  await deployToDev(floe.url, token, wide('1-0-0'))
  const hash = createHash('sha256')
    .update(`${BOOTSTRAP.organizationId}-com.floe.bench-order-jsonschema`, 'utf8')
    .digest('hex')
  const base = `${floe.url}/api/msc/v1/organizations/${BOOTSTRAP.organizationId}/data-structures/v1`
  const versionUrl = `${base}/${hash}/versions/1-0-0?env=DEV`
  const auth = { authorization: `Bearer ${token}` }
  const served = await (await fetch(versionUrl, { headers: auth })).json()
  if (served.self?.name !== 'order')
    throw new Error(`the version read answered ${JSON.stringify(served).slice(0, 200)}`)
  const baselineServer = await startBaseline({ logLevel, json: served })
  try {
    const { subject, baseline } = await alternate({
      subject: { url: versionUrl, headers: auth },
      baseline: { url: `${baselineServer.url}/json` },
      rounds: ROUNDS,
      duration: DURATION,
      connections: CONNECTIONS,
    })
    // Validation requests store a record each: a shorter run, one connection, for latency. Each
    // sends a document of its own (a property's description numbered: a change below the root,
    // which the compatibility engine is asked about, as for a new schema version); then
    // one document again and again, as a CI run sends the schemas it sent the last time, whose
    // report the server remembers.
    const validationRequest = {
      url: `${base}/validation-requests`,
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      duration: Math.max(1, Math.round(DURATION / 2)),
      connections: 1,
    }
    const numbered = (n) => {
      const schema = wide('1-0-1')
      schema.properties.field_0 = { ...schema.properties.field_0, description: `field 0 (${n})` }
      return schema
    }
    const validation = await load({
      ...validationRequest,
      bodyOf: (n) => JSON.stringify({ data: numbered(n) }),
    })
    const validationAgain = await load({
      ...validationRequest,
      body: JSON.stringify({ data: wide('1-0-1') }),
    })
    const ratio = subject.requestsPerSecond / baseline.requestsPerSecond
    console.log(
      JSON.stringify({
        scenario: 'registry',
        durationSeconds: DURATION,
        rounds: ROUNDS,
        connections: CONNECTIONS,
        logLevel,
        requestsPerSecond: Math.round(subject.requestsPerSecond),
        p50Ms: subject.p50Ms,
        p99Ms: subject.p99Ms,
        baselineRequestsPerSecond: Math.round(baseline.requestsPerSecond),
        baselineP50Ms: baseline.p50Ms,
        ratio,
        target: 0.8,
        met: ratio >= 0.8,
        validationP50Ms: validation.p50Ms,
        validationP99Ms: validation.p99Ms,
        validationRequestsPerSecond: Math.round(validation.requestsPerSecond),
        validationRequests: validation.requests,
        repeatedValidationP50Ms: validationAgain.p50Ms,
        repeatedValidationP99Ms: validationAgain.p99Ms,
        allOk:
          subject.non2xx === 0 &&
          subject.errors === 0 &&
          validation.non2xx === 0 &&
          validation.errors === 0 &&
          validationAgain.non2xx === 0 &&
          validationAgain.errors === 0,
      }),
    )
  } finally {
    await baselineServer.stop()
  }
} finally {
  await floe.stop()
}
