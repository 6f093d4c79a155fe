// Ingest: page views with two contexts (web_page and a custom entity deployed to the registry's DEV
// environment), validated and enriched by `floe start` in another process.
//   --mode get:  GET /i, one event per request; baseline: a bare Fastify route returning the same GIF.
//   --mode post: POST tp2 with --batch events per request; baseline: a bare route answering "ok".
// Figures: events/s and latency p50/p99, the baseline's requests/s, and their ratio.
// Usage: node bench/ingest.mjs --mode get|post [--duration 10] [--rounds 2] [--connections 10] [--batch 10]
import { accessToken, deployToDev, startBaseline, startFloe } from './support/processes.mjs'
import { alternate, option } from './support/load.mjs'

const mode = process.argv.includes('post') ? 'post' : 'get'
const DURATION = option('duration', 10)
const ROUNDS = option('rounds', 2)
const CONNECTIONS = option('connections', 10)
const BATCH = option('batch', 10)
const logLevel = process.env.BENCH_LOG_LEVEL ?? 'info'

const PRODUCT = {
  $schema: 'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#',
  self: { vendor: 'com.floe.bench', name: 'product', format: 'jsonschema', version: '1-0-0' },
  description: 'A product seen on a page',
  type: 'object',
  properties: {
    sku: { type: 'string', maxLength: 64, description: 'stock keeping unit' },
    name: { type: 'string', maxLength: 255, description: 'product name' },
    price: { type: 'number', minimum: 0, description: 'unit price' },
    currency: { type: 'string', pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' },
    category: { type: ['string', 'null'], maxLength: 255, description: 'category' },
    inStock: { type: 'boolean', description: 'whether it can be bought' },
  },
  required: ['sku', 'price', 'currency'],
  additionalProperties: false,
}
const contexts = {
  schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0',
  data: [
    { schema: 'iglu:com.snowplowanalytics.snowplow/web_page/jsonschema/1-0-0', data: { id: '5a2b1c0e-7d3f-4a8e-9b6c-1d2e3f4a5b6c' } },
    { schema: 'iglu:com.floe.bench/product/jsonschema/1-0-0', data: { sku: 'SKU-0042', name: 'Kettle', price: 39.9, currency: 'EUR', category: 'kitchen', inStock: true } },
  ],
}
const pageView = (n) => ({
  e: 'pv', p: 'web', tv: 'js-3.4.0', aid: 'bench', eid: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
  url: 'https://shop.test/kitchen/kettle?utm_source=news', page: 'Kettle', refr: 'https://search.test/?q=kettle',
  dtm: '1700000000000', stm: '1700000000100', duid: 'b7c1d2e3-0000-4000-8000-000000000001', vid: '3', sid: 'c1d2e3f4-0000-4000-8000-000000000002',
  res: '1920x1080', vp: '1280x720', cd: '24', lang: 'en-GB', cs: 'UTF-8', tz: 'Europe/Berlin',
})
const headers = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36' }

const floe = await startFloe({ logLevel })
const baselineServer = await startBaseline({ logLevel })
try {
  await deployToDev(floe.url, await accessToken(floe.url), PRODUCT)
  const query = new URLSearchParams({ ...pageView(1), cx: Buffer.from(JSON.stringify(contexts)).toString('base64url') }).toString()
  const body = JSON.stringify({ schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4', data: Array.from({ length: BATCH }, (_, i) => ({ ...pageView(i), co: JSON.stringify(contexts) })) })
  const postHeaders = { ...headers, 'content-type': 'application/json; charset=UTF-8' }
  const request = (url) => (mode === 'get' ? { url: `${url}/i?${query}`, headers } : { url: `${url}/com.snowplowanalytics.snowplow/tp2`, method: 'POST', body, headers: postHeaders })

  // One request first: the events must come out good, with both contexts, or the figures mean nothing.
  await fetch(request(floe.url).url, request(floe.url))
  const [checked] = await (await fetch(`${floe.url}/local/good`, { method: 'POST', body: JSON.stringify({ contexts: contexts.data.map((c) => c.schema), limit: 1 }) })).json()
  const counts = await (await fetch(`${floe.url}/local/all`)).json()
  if (checked === undefined || counts.bad !== 0) throw new Error(`the bench events are not good: ${JSON.stringify(counts)}`)

  const { subject, baseline } = await alternate({ subject: request(floe.url), baseline: request(baselineServer.url), rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS })
  const after = await (await fetch(`${floe.url}/local/all`)).json()
  const perRequest = mode === 'get' ? 1 : BATCH
  const eventsPerSecond = subject.requestsPerSecond * perRequest
  const ratio = eventsPerSecond / baseline.requestsPerSecond
  const target = mode === 'get' ? 0.7 : 4
  console.log(JSON.stringify({
    scenario: mode === 'get' ? 'ingest-get' : 'ingest-post',
    eventsPerRequest: perRequest,
    durationSeconds: DURATION,
    rounds: ROUNDS,
    connections: CONNECTIONS,
    logLevel,
    eventsPerSecond: Math.round(eventsPerSecond),
    requestsPerSecond: Math.round(subject.requestsPerSecond),
    p50Ms: subject.p50Ms,
    p99Ms: subject.p99Ms,
    baselineRequestsPerSecond: Math.round(baseline.requestsPerSecond),
    baselineP50Ms: baseline.p50Ms,
    baselineP99Ms: baseline.p99Ms,
    ratio,
    target,
    met: ratio >= target,
    allGood: after.bad === 0 && subject.non2xx === 0 && subject.errors === 0,
  }))
} finally {
  await floe.stop()
  await baselineServer.stop()
}
