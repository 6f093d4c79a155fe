// What a store held in a worker thread would cost each read (docs/benchmark-passes.md, thirty-seventh pass):
// the round trip of one message to a worker thread waiting for messages and its answer, one ask
// at a time, for three answers: a number, an answer of --bytes written into a new buffer and
// transferred, and the same answer cloned by postMessage. Each figure is the p50 of --asks asks,
// after a tenth as many to warm up. Then the same asks of a worker parked in `Atomics.wait` instead
// of its event loop (woken by `Atomics.notify`, this thread waiting for the answer the same way and
// taking a transferred answer with `receiveMessageOnPort`, so that neither thread's event loop has
// to wake): a number, the transferred answer, and the answer's place in memory the worker wrote it
// into and this thread reads (a `SharedArrayBuffer`: nothing copied).
// Usage: node bench/worker-round-trip.mjs [--asks 2000] [--bytes 492544]
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads'
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

/**
 * A worker that waits in `Atomics.wait` for asks: `flags[0]` counts the asks made, `flags[1]` the
 * asks answered, `flags[2]` says what the last one asks for (0 a number, 1 the answer transferred
 * over `port`, read back with `receiveMessageOnPort` once `flags[1]` says it is there, 2 where the
 * answer lies in `shared`: its start and length in `flags[3]` and `flags[4]`).
 */
const flags = new Int32Array(new SharedArrayBuffer(5 * Int32Array.BYTES_PER_ELEMENT))
const shared = new SharedArrayBuffer(BYTES)
const { port1: answers, port2: answerPort } = new MessageChannel()
const parked = new Worker(
  `const { workerData } = require('node:worker_threads')
   const { flags, port, shared } = workerData
   const kept = Buffer.alloc(workerData.bytes, 0x61)
   Buffer.from(shared).fill(0x61)
   let answered = 0
   for (;;) {
     Atomics.wait(flags, 0, answered)
     const what = Atomics.load(flags, 2)
     if (what === 2) {
       flags[3] = 0
       flags[4] = shared.byteLength
     } else if (what === 1) {
       const out = Buffer.allocUnsafeSlow(kept.length)
       kept.copy(out)
       port.postMessage(out, [out.buffer])
     }
     answered++
     Atomics.store(flags, 1, answered)
     Atomics.notify(flags, 1)
   }`,
  {
    eval: true,
    workerData: { bytes: BYTES, flags, port: answerPort, shared },
    transferList: [answerPort],
  },
)

/** One ask of the parked worker, this thread waiting for it; the transferred answer's length. */
function askParked(what) {
  Atomics.store(flags, 2, what)
  const asked = Atomics.add(flags, 0, 1) + 1
  Atomics.notify(flags, 0)
  while (Atomics.load(flags, 1) < asked) Atomics.wait(flags, 1, asked - 1, 1000)
  if (what === 0) return 0
  if (what === 2) return Buffer.from(shared, flags[3], flags[4]).byteLength
  const received = receiveMessageOnPort(answers)
  if (received === undefined) throw new Error('the parked worker answered without its message')
  return received.message.byteLength
}

/** The p50 of ASKS round trips to the parked worker, in µs. */
function parkedP50(what) {
  for (let i = 0; i < Math.ceil(ASKS / 10); i++) askParked(what)
  const micros = []
  for (let i = 0; i < ASKS; i++) {
    const start = process.hrtime.bigint()
    const length = askParked(what)
    micros.push(Number(process.hrtime.bigint() - start) / 1000)
    if (what !== 0 && length !== BYTES) throw new Error(`an answer of ${length} bytes`)
  }
  micros.sort((a, b) => a - b)
  return Number(quantile(micros, 0.5).toFixed(1))
}

const report = { scenario: 'worker-round-trip', asks: ASKS, bytes: BYTES }
// The parked worker first, then ended, so that one worker at a time shares the machine with this thread.
report.parkedNumberP50Micros = parkedP50(0)
report.parkedTransferP50Micros = parkedP50(1)
report.parkedSharedP50Micros = parkedP50(2)
await parked.terminate()
for (const answer of ['number', 'transfer', 'clone'])
  report[`${answer}P50Micros`] = await p50(answer)
await worker.terminate()
answers.close()
console.log(JSON.stringify(report))
