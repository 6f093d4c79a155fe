// The worker thread of bench/worker-store.mjs: the collector pipeline and a memory event store of
// 100 000 events, as bench/support/pipeline-harness.mjs builds them from the build in `dist`. It
// takes the requests its server hands over in batches, and says how many it has processed.
// With `texts` (workerData), it also writes each good event's JSON text, as Floe's store writes it
// for an answer, into memory shared with the server, and hands back where each text lies: the
// server's side of a store whose texts the worker writes and whose index the main thread keeps.
import { parentPort, workerData } from 'node:worker_threads'
import { pipelineHarness } from './pipeline-harness.mjs'

const distRoot = new URL('../../dist', import.meta.url).pathname
const { inspection } = await pipelineHarness({
  distRoot,
  mode: 'get',
  capacity: workerData?.capacity ?? 100_000,
})
let received = 0

/** Where the texts are written, one after another, from the start again once full. */
const TEXT_BYTES = 256 * 2 ** 20
const shared = workerData?.texts ? new SharedArrayBuffer(TEXT_BYTES) : null
const textMemory = shared === null ? null : Buffer.from(shared)
let textEnd = 0
/** Start and length of each text written since the last hand-back. */
let placed = []
if (textMemory !== null) {
  const { storedEventJson } = await import(`${distRoot}/inspection/pipeline/java-doubles.js`)
  inspection.subscribe((arrival) => {
    if (arrival.kind !== 'good') return
    const text = storedEventJson(arrival.event)
    if (textEnd + text.length * 3 > TEXT_BYTES) textEnd = 0
    const length = textMemory.write(text, textEnd, 'utf8')
    placed.push(textEnd, length)
    textEnd += length
  })
}

parentPort.on('message', async (message) => {
  if (message.kind === 'counts') {
    await inspection.settled?.()
    parentPort.postMessage({ kind: 'counts', received, counts: await inspection.store.counts() })
    return
  }
  for (const request of message.requests) {
    received++
    void inspection.collect({
      api: {
        vendor: 'com.snowplowanalytics.snowplow',
        version: request.body === null ? 'tp1' : 'tp2',
      },
      method: request.body === null ? 'GET' : 'POST',
      rawQuery: request.rawQuery,
      headers: request.headers,
      remoteAddress: request.remoteAddress,
      body: request.body,
      timestamp: request.timestamp,
      collectorName: 'floe-collector',
      nuidCookie: 'sp',
    })
  }
  await inspection.settled?.()
  if (textMemory === null) {
    parentPort.postMessage({ kind: 'processed', count: message.requests.length })
    return
  }
  const places = Int32Array.from(placed)
  placed = []
  parentPort.postMessage({ kind: 'processed', count: message.requests.length, places }, [
    places.buffer,
  ])
})
parentPort.postMessage({ kind: 'ready', shared })
