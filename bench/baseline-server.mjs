// The baselines' server: bare Fastify routes with the Fastify options of src/app.ts and the same
// log level, and nothing else: the GIF of GET /i, the "ok" of POST tp2 (body read as text, as the
// collector reads it) and a fixed JSON document (env BENCH_BASELINE_JSON) at GET /json, without auth.
// Usage: node bench/baseline-server.mjs --port 9191 [--log-level info]
import Fastify from 'fastify'
import { PIXEL, readBodiesAsText } from './support/bare-collector.mjs'

const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 ? process.argv[at + 1] : fallback
}
const json = JSON.parse(process.env.BENCH_BASELINE_JSON ?? '{}')

const app = Fastify({
  logger: { level: option('log-level', 'info') },
  bodyLimit: 1024 * 1024,
  forceCloseConnections: 'idle',
  requestTimeout: 30_000,
  http: { requestTimeout: 30_000, connectionsCheckingInterval: 5000, maxHeaderSize: 32 * 1024 },
  return503OnClosing: true,
  ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
})
app.get('/health', async (_request, reply) => reply.type('text/plain; charset=utf-8').send('ok'))
app.get('/json', async () => json)
await app.register(async (collector) => {
  readBodiesAsText(collector)
  collector.get('/i', async (_request, reply) =>
    reply
      .header('Cache-Control', 'no-cache, no-store, must-revalidate')
      .type('image/gif')
      .send(PIXEL),
  )
  collector.post('/com.snowplowanalytics.snowplow/tp2', async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').send('ok'),
  )
})
app.server.maxConnections = 1024
await app.listen({ host: '127.0.0.1', port: Number(option('port', '0')) })
const stop = () => app.close().then(() => process.exit(0))
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
