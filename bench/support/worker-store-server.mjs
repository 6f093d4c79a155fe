// The server of bench/worker-store.mjs, a prototype and not Floe: the collector's two routes answer
// on the main thread as the baselines' do (no per-request log, as Floe's collector routes), and hand
// each request's parts to a worker thread that runs the pipeline and keeps the events. The requests
// read in one turn of the event loop go over in one message. Backpressure: past --max-pending
// requests handed over and not yet processed, a route waits before it answers, as Floe's
// processing queue does (so the figures are what the worker keeps up with, not a growing backlog).
// With --texts the worker also writes each good event's text into memory shared with this thread,
// which keeps where each lies and a list of arrival numbers per indexed value, as a store read by
// the main thread would (--worker-capacity sets the worker's own store: small, it stands for a
// worker that keeps the texts only).
// Usage: node bench/support/worker-store-server.mjs --port N [--max-pending 200] [--texts] [--worker-capacity 100000]
import { Worker } from 'node:worker_threads'
import Fastify from 'fastify'
import { PIXEL, readBodiesAsText } from './bare-collector.mjs'
import { option } from './load.mjs'

const MAX_PENDING = option('max-pending', 200)

const TEXTS = process.argv.includes('--texts')
const worker = new Worker(new URL('./worker-store-worker.mjs', import.meta.url), {
  workerData: { texts: TEXTS, capacity: option('worker-capacity', 100_000) },
})
await new Promise((resolve) => worker.once('message', resolve))

/** The texts' places (start, length) by arrival number, and two postings lists, bounded as a store. */
const INDEXED = 100_000
const starts = new Int32Array(INDEXED)
const lengths = new Int32Array(INDEXED)
const byType = []
const bySchema = []
let arrivals = 0
const keepPlaces = (places) => {
  for (let i = 0; i < places.length; i += 2) {
    const slot = arrivals % INDEXED
    starts[slot] = places[i]
    lengths[slot] = places[i + 1]
    byType.push(arrivals)
    bySchema.push(arrivals)
    arrivals++
  }
  if (byType.length > 2 * INDEXED) {
    byType.splice(0, INDEXED)
    bySchema.splice(0, INDEXED)
  }
}

let waiting = []
let pending = 0
let wakers = []
worker.on('message', (message) => {
  if (message.kind !== 'processed') return
  if (message.places !== undefined) keepPlaces(message.places)
  pending -= message.count
  if (pending > MAX_PENDING) return
  const woken = wakers
  wakers = []
  for (const wake of woken) wake()
})
const handOver = () => {
  const requests = waiting
  waiting = []
  worker.postMessage({ kind: 'requests', requests })
}
/** Queues the request's parts for the worker; a promise to wait for when the worker is behind. */
function hand(request, body) {
  pending++
  if (waiting.length === 0) setImmediate(handOver)
  const url = request.raw.url
  const at = url.indexOf('?')
  waiting.push({
    rawQuery: at < 0 ? '' : url.slice(at + 1),
    headers: request.headers,
    remoteAddress: request.socket.remoteAddress ?? null,
    body,
    timestamp: Date.now(),
  })
  return pending <= MAX_PENDING ? null : new Promise((resolve) => wakers.push(resolve))
}

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 })
app.get('/health', async () => 'ok')
app.get(
  '/counts',
  () =>
    new Promise((resolve) => {
      const answer = (message) => {
        if (message.kind !== 'counts') return
        worker.off('message', answer)
        resolve({ ...message, textsPlaced: arrivals })
      }
      worker.on('message', answer)
      worker.postMessage({ kind: 'counts' })
    }),
)
await app.register(async (collector) => {
  readBodiesAsText(collector)
  collector.get('/i', async (request, reply) => {
    await hand(request, null)
    return reply
      .header('Cache-Control', 'no-cache, no-store, must-revalidate')
      .type('image/gif')
      .send(PIXEL)
  })
  collector.post('/com.snowplowanalytics.snowplow/tp2', async (request, reply) => {
    await hand(request, request.body)
    return reply.type('text/plain; charset=utf-8').send('ok')
  })
})
await app.listen({ port: option('port', 0), host: '127.0.0.1' })
process.stdout.write('listening\n')
