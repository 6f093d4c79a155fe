import type { MessagePort } from 'node:worker_threads'
import { workerData } from 'node:worker_threads'
import type { ScriptAnswer, ScriptCall } from '../pipeline/enrichments/javascript-script.js'
import { ScriptSandbox, type ScriptLimits } from './script-sandbox.js'

// This module runs in the script pool's worker threads only: one sandbox per thread, made as the
// thread starts, whose script runtimes live as long as the thread.

/** A call as it crosses to a worker, with the port on which the worker says the script is ready to run. */
export interface ScriptTask {
  readonly call: ScriptCall
  readonly started: MessagePort
}

const sandbox = ScriptSandbox.create(workerData as ScriptLimits)

export default async function runScript({ call, started }: ScriptTask): Promise<ScriptAnswer> {
  const ready = await sandbox
  ready.prepare(call.script)
  // From here on the event's own budget counts (a thread's cold start and a compile do not).
  started.postMessage(true)
  started.close()
  return ready.run(call)
}
