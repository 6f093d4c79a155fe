// The worker thread of bench/worker-store.mjs: the collector pipeline and a memory event store of
// 100 000 events, as bench/support/pipeline-harness.mjs builds them from the build in `dist`. It
// takes the requests its server hands over in batches, and says how many it has processed.
import { parentPort } from 'node:worker_threads'
import { pipelineHarness } from './pipeline-harness.mjs'

const { inspection } = await pipelineHarness({
  distRoot: new URL('../../dist', import.meta.url).pathname,
  mode: 'get',
  capacity: 100_000,
})
let received = 0

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
  parentPort.postMessage({ kind: 'processed', count: message.requests.length })
})
parentPort.postMessage({ kind: 'ready' })
