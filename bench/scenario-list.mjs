// Tracking scenario lists: GET .../tracking-scenarios/v1 of 1 000 scenarios, each with an event
// schema checked against a deployed data structure (1 000 different compatibility verdicts), on a
// warm verdict cache and just after a restart (cold). Baseline, measured in the same run: the list
// of 1 000 scenarios of another data product with no source, so no check (the list's own cost).
// Usage: node bench/scenario-list.mjs [--scenarios 1000] [--reads 5]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { BOOTSTRAP, accessToken, deployToDev, startFloe } from './support/processes.mjs'
import { option, quantile } from './support/load.mjs'

const SCENARIOS = option('scenarios', 1000)
const READS = option('reads', 5)
const SOURCE = 'iglu:com.floe.bench/checkout/jsonschema/1-0-0'

const checkout = {
  $schema:
    'http://iglucentral.com/schemas/com.snowplowanalytics.self-desc/schema/jsonschema/1-0-0#',
  self: { vendor: 'com.floe.bench', name: 'checkout', format: 'jsonschema', version: '1-0-0' },
  description: 'A checkout with twenty properties',
  type: 'object',
  properties: Object.fromEntries(
    Array.from({ length: 20 }, (_, i) => [
      `field_${i}`,
      { type: 'string', maxLength: 100, description: `field ${i}` },
    ]),
  ),
  additionalProperties: false,
}

async function call(url, token, method, p, body) {
  const response = await fetch(`${url}/api/msc/v1/organizations/${BOOTSTRAP.organizationId}${p}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const answer = await response.json()
  if (response.status >= 300)
    throw new Error(
      `${method} ${p} answered ${response.status}: ${JSON.stringify(answer).slice(0, 1500)}`,
    )
  return answer
}

/** Milliseconds of each of `reads` lists of one data product's scenarios, and the last answer. */
async function timeLists(url, token, productId, reads) {
  const times = []
  let answer = null
  for (let r = 0; r < reads; r++) {
    const started = performance.now()
    answer = await call(url, token, 'GET', `/tracking-scenarios/v1?dataProductId=${productId}`)
    times.push(performance.now() - started)
  }
  return { times: times.sort((a, b) => a - b), answer }
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'floe-bench-list-'))
let floe = await startFloe({ logLevel: 'warn', args: ['--data-dir', dataDir] })
try {
  let token = await accessToken(floe.url)
  await deployToDev(floe.url, token, checkout)
  const checked = (await call(floe.url, token, 'POST', '/data-products/v2', { name: 'Checked' }))
    .data[0].id
  const unchecked = (
    await call(floe.url, token, 'POST', '/data-products/v2', { name: 'Unchecked' })
  ).data[0].id
  for (let i = 0; i < SCENARIOS; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, SCENARIOS - i) }, async (_, k) => {
        const n = i + k
        // Each event schema is its own: every scenario is a verdict of its own.
        const schema = {
          type: 'object',
          properties: {
            field_0: { type: 'string', maxLength: 1 + (n % 100) },
            [`field_${1 + (n % 19)}`]: {
              type: 'string',
              minLength: 1 + Math.floor(n / 100),
              maxLength: 100,
            },
          },
          additionalProperties: false,
        }
        await call(floe.url, token, 'POST', '/tracking-scenarios/v1', {
          scenario: {
            name: `checked ${n}`,
            dataProductId: checked,
            event: { source: SOURCE, schema },
          },
        })
        await call(floe.url, token, 'POST', '/tracking-scenarios/v1', {
          scenario: { name: `unchecked ${n}`, dataProductId: unchecked },
        })
      }),
    )
  }
  const warm = await timeLists(floe.url, token, checked, READS)
  const baseline = await timeLists(floe.url, token, unchecked, READS)
  if (warm.answer.data.length !== SCENARIOS || baseline.answer.data.length !== SCENARIOS)
    throw new Error('the lists did not hold every scenario')

  // Verdicts are kept in memory: a restart makes the first list compute them again.
  await floe.stop()
  floe = await startFloe({ logLevel: 'warn', args: ['--data-dir', dataDir] })
  token = await accessToken(floe.url)
  const cold = await timeLists(floe.url, token, checked, 1)
  const warmP50 = quantile(warm.times, 0.5)
  const baselineP50 = quantile(baseline.times, 0.5)
  console.log(
    JSON.stringify({
      scenario: 'scenario-list',
      scenarios: SCENARIOS,
      reads: READS,
      warmP50Ms: Number(warmP50.toFixed(1)),
      coldMs: Number(cold.times[0].toFixed(1)),
      baselineP50Ms: Number(baselineP50.toFixed(1)),
      ratio: warmP50 / baselineP50,
      target: 'warm list well under a second',
      met: warmP50 < 1000,
      warnings: warm.answer.errors.length,
    }),
  )
} finally {
  await floe.stop()
  rmSync(dataDir, { recursive: true, force: true })
}
