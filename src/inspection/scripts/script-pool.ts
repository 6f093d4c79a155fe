import path from 'node:path'
import { MessageChannel } from 'node:worker_threads'
import { Piscina } from 'piscina'
import { BUILD_DIR } from '../../package-root.js'
import type { ScriptAnswer, ScriptCall } from '../pipeline/enrichments/javascript-script.js'
import type { ScriptLimits } from './script-sandbox.js'
import type { ScriptTask } from './script-sandbox.worker.js'

/** How the pool runs scripts: the sandbox's limits, its threads, and when idle threads stop. */
export interface ScriptPoolLimits extends ScriptLimits {
  readonly threads: number
  /** Threads stop after this long without work (their scripts' globals go with them). */
  readonly idleMs: number
}

/** A script call that waits this long for a thread (and a compile) fails: too many are queued. */
const MAX_WAIT_MS = 30_000

/** How long past two budgets a thread may take to answer before it is stopped. */
const HARD_STOP_MARGIN_MS = 200

/** The worker thread's heap: QuickJS's own memory is its runtimes' limit, outside this. */
const WORKER_HEAP_MB = 128

const failed = (reason: string): ScriptAnswer => ({
  kind: 'failed',
  message: `Error during execution of JavaScript function: [${reason}]`,
})

/**
 * JavaScript enrichment scripts in worker threads, each thread with a QuickJS sandbox: the
 * collector's event loop never runs a script. The engine interrupts a script at its time budget;
 * should a thread not answer well after it, or die, the event fails and the thread is replaced.
 */
export class ScriptPool {
  #piscina: Piscina<ScriptTask, ScriptAnswer> | null = null
  #closed = false

  constructor(readonly limits: ScriptPoolLimits) {}

  #threads(): Piscina<ScriptTask, ScriptAnswer> {
    if (this.#piscina === null) {
      this.#piscina = new Piscina({
        filename: path.join(BUILD_DIR, 'inspection', 'scripts', 'script-sandbox.worker.js'),
        minThreads: 0,
        maxThreads: this.limits.threads,
        idleTimeout: this.limits.idleMs,
        workerData: { timeoutMs: this.limits.timeoutMs, memoryBytes: this.limits.memoryBytes },
        resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, stackSizeMb: 4 },
      })
      // A thread that fails outside a script is replaced; unheard, piscina's 'error' event would
      // be the process's uncaught exception. A script's own failure is its event's failure.
      this.#piscina.on('error', () => undefined)
    }
    return this.#piscina
  }

  /** One event through one script; never throws: a failure is the event's enrichment failure. */
  async run(call: ScriptCall): Promise<ScriptAnswer> {
    if (this.#closed) return failed('the server is stopping')
    const abort = new AbortController()
    const { port1, port2 } = new MessageChannel()
    let started = false
    let timer = setTimeout(() => abort.abort(), MAX_WAIT_MS)
    // The engine checks its deadline between instructions, not inside one long built-in call (a
    // fill or a sort of millions of items): two budgets and a margin after the script starts, the
    // thread goes.
    port1.once('message', () => {
      started = true
      clearTimeout(timer)
      timer = setTimeout(() => abort.abort(), this.limits.timeoutMs * 2 + HARD_STOP_MARGIN_MS)
    })
    try {
      return await this.#threads().run(
        { call, started: port2 },
        { signal: abort.signal, transferList: [port2] },
      )
    } catch (error) {
      const name = error instanceof Error ? error.name : ''
      if (name === 'AbortError' || name === 'TimeoutError')
        return failed(
          started
            ? `the script did not stop at its budget of ${this.limits.timeoutMs} ms: its thread was stopped and replaced`
            : `the script waited ${MAX_WAIT_MS / 1000} s for a thread: too many scripts are running`,
        )
      return failed(
        `the script's thread stopped: ${error instanceof Error ? error.message : String(error)}`,
      )
    } finally {
      clearTimeout(timer)
      port1.close()
    }
  }

  async close(): Promise<void> {
    this.#closed = true
    const running = this.#piscina
    this.#piscina = null
    await running?.destroy()
  }
}
