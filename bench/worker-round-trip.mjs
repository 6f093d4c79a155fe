// What a store held in a worker thread would cost each read (docs/benchmark-passes.md, thirty-seventh pass):
// the round trip of one message to a worker thread waiting for messages and its answer, one ask
// at a time, for three answers: a number, an answer of --bytes written into a new buffer and
// transferred, and the same answer cloned by postMessage. Each figure is the p50 of --asks asks,
// after a tenth as many to warm up.
// Usage: node bench/worker-round-trip.mjs [--asks 2000] [--bytes 492544]
import { Worker } from 'node:worker_threads'
import { option, quantile } from './support/load.mjs'

const ASKS = option('asks', 2000)
const BYTES = option('bytes', 481 * 1024)

const worker = new Worker(
  `const { parentPort, workerData } = require('node:worker_threads')
   const kept = Buffer.alloc(workerData.bytes, 0x61)
   parentPort.on('message', (answer) => {
     if (answer === 'number') parentPort.postMessage(1)
     else if (answer === 'clone') parentPort.postMessage(kept)
     else {
       const out = Buffer.allocUnsafeSlow(kept.length)
       kept.copy(out)
       parentPort.postMessage(out, [out.buffer])
     }
   })`,
  { eval: true, workerData: { bytes: BYTES } },
)
const ask = (answer) =>
  new Promise((resolve) => {
    worker.once('message', resolve)
    worker.postMessage(answer)
  })

/** The p50 of ASKS round trips, in µs. */
async function p50(answer) {
  for (let i = 0; i < Math.ceil(ASKS / 10); i++) await ask(answer)
  const micros = []
  for (let i = 0; i < ASKS; i++) {
    const start = process.hrtime.bigint()
    await ask(answer)
    micros.push(Number(process.hrtime.bigint() - start) / 1000)
  }
  micros.sort((a, b) => a - b)
  return Number(quantile(micros, 0.5).toFixed(1))
}

const report = { scenario: 'worker-round-trip', asks: ASKS, bytes: BYTES }
for (const answer of ['number', 'transfer', 'clone'])
  report[`${answer}P50Micros`] = await p50(answer)
await worker.terminate()
console.log(JSON.stringify(report))
