// The ingest scenarios' event: a page view with two contexts, web_page and a custom product entity
// (deployed to the registry's DEV environment by the scenarios that run Floe).

export const BENCH_PRODUCT = {
  $schema:
    'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#',
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

export const benchContexts = {
  schema: 'iglu:com.snowplowanalytics.snowplow/contexts/jsonschema/1-0-0',
  data: [
    {
      schema: 'iglu:com.snowplowanalytics.snowplow/web_page/jsonschema/1-0-0',
      data: { id: '5a2b1c0e-7d3f-4a8e-9b6c-1d2e3f4a5b6c' },
    },
    {
      schema: 'iglu:com.floe.bench/product/jsonschema/1-0-0',
      data: {
        sku: 'SKU-0042',
        name: 'Kettle',
        price: 39.9,
        currency: 'EUR',
        category: 'kitchen',
        inStock: true,
      },
    },
  ],
}

/** The tracker parameters of page view `n` (its event id is derived from n). */
export const benchPageView = (n) => ({
  e: 'pv',
  p: 'web',
  tv: 'js-3.4.0',
  aid: 'bench',
  eid: `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`,
  url: 'https://shop.test/kitchen/kettle?utm_source=news',
  page: 'Kettle',
  refr: 'https://search.test/?q=kettle',
  dtm: '1700000000000',
  stm: '1700000000100',
  duid: 'b7c1d2e3-0000-4000-8000-000000000001',
  vid: '3',
  sid: 'c1d2e3f4-0000-4000-8000-000000000002',
  res: '1920x1080',
  vp: '1280x720',
  cd: '24',
  lang: 'en-GB',
  cs: 'UTF-8',
  tz: 'Europe/Berlin',
})

export const BENCH_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36'

/** Events per tp2 request in the ingest scenarios. */
export const BENCH_BATCH = 10

/**
 * The contexts text of event `n` of a batch: with `distinct`, its web_page entity has an id of its
 * own (as if each event came from another page view), so that no two events of a batch carry the
 * same text; otherwise every event carries benchContexts, as a page's events carry the same entities.
 */
export function benchContextsText(n, distinct = false) {
  if (!distinct) return JSON.stringify(benchContexts)
  const [page, product] = benchContexts.data
  const id = `5a2b1c0e-7d3f-4a8e-9b6c-${n.toString(16).padStart(12, '0')}`
  return JSON.stringify({ ...benchContexts, data: [{ ...page, data: { id } }, product] })
}

/**
 * The ingest scenarios' request to the server at `url`: GET /i with the page view (contexts base64 in
 * `cx`), or a tp2 POST of `batch` page views (contexts in `co`; with `distinctEntities`, each event's
 * own: see benchContextsText).
 */
export function benchIngestRequest(
  mode,
  url,
  batch = BENCH_BATCH,
  { distinctEntities = false } = {},
) {
  const headers = { 'user-agent': BENCH_USER_AGENT }
  if (mode === 'get') {
    const query = new URLSearchParams({
      ...benchPageView(1),
      cx: Buffer.from(JSON.stringify(benchContexts)).toString('base64url'),
    }).toString()
    return { url: `${url}/i?${query}`, headers }
  }
  const body = JSON.stringify({
    schema: 'iglu:com.snowplowanalytics.snowplow/payload_data/jsonschema/1-0-4',
    data: Array.from({ length: batch }, (_, i) => ({
      ...benchPageView(i),
      co: benchContextsText(i, distinctEntities),
    })),
  })
  return {
    url: `${url}/com.snowplowanalytics.snowplow/tp2`,
    method: 'POST',
    body,
    headers: { ...headers, 'content-type': 'application/json; charset=UTF-8' },
  }
}
