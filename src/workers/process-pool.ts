import { fork, type ChildProcess } from 'node:child_process'
import type { Readable } from 'node:stream'
import type { ProcessMessage, TaskMessage } from './process-tasks.js'

export interface ProcessPoolOptions {
  /** The module each process runs: it calls `serveTasks`. */
  readonly entryPoint: string
  /** Processes at most, each running one task at a time. */
  readonly processes: number
  /** Node's flags for each process (never the server's own: a profiler, a test runner's loader). */
  readonly execArgv: readonly string[]
}

/** How a task ended. */
export type TaskEnd<A> =
  | { readonly kind: 'answered'; readonly answer: A }
  /** The task threw: the message of what it threw. */
  | { readonly kind: 'failed'; readonly message: string }
  /** It ran past its running time: its process was killed. */
  | { readonly kind: 'timed-out' }
  /** Its process died under it (V8 aborts a process that runs out of memory): the last of its standard error. */
  | {
      readonly kind: 'died'
      readonly code: number | null
      readonly signal: NodeJS.Signals | null
      readonly stderr: string
    }
  /** No process took it within its wait. */
  | { readonly kind: 'waited-too-long' }
  /** The pool was closed before it ended. */
  | { readonly kind: 'closed' }

/** The last characters of a process's standard error kept: why it died, when it does. */
const KEPT_STDERR_CHARS = 4_096

interface Job<T, A> {
  readonly id: number
  readonly task: T
  readonly runningMs: number
  timer: NodeJS.Timeout | undefined
  /** Ends the task, once: later ends (a death after a timeout) are ignored. */
  readonly settle: (end: TaskEnd<A>) => void
}

interface Worker<T, A> {
  readonly child: ChildProcess
  ready: boolean
  job: Job<T, A> | null
  stderr: string
  gone: boolean
  /** Stopped by the pool (`stopAll`, `close`), not dead of itself. */
  stopped: boolean
  readonly exited: Promise<void>
}

/**
 * Worker processes, each running one task at a time from a queue in arrival order, started when
 * tasks wait and replaced when one dies. A process of its own, unlike a worker thread, can run out
 * of memory in any way V8 knows (which aborts the process) without taking the server down. Idle
 * processes do not keep the server's event loop alive.
 */
export class ProcessPool<T, A> {
  readonly #workers = new Set<Worker<T, A>>()
  #queue: Job<T, A>[] = []
  #nextId = 1
  #closed = false

  constructor(readonly options: ProcessPoolOptions) {}

  /** Processes alive or starting. */
  get size(): number {
    return this.#workers.size
  }

  /** Starts every process now, so that the first tasks do not wait for one. */
  prestart(): void {
    while (!this.#closed && this.#workers.size < this.options.processes) this.#spawn()
  }

  /**
   * Runs one task: it waits at most `waitMs` for a process to take it, then runs at most
   * `runningMs`. Never rejects.
   */
  run(task: T, limits: { runningMs: number; waitMs: number }): Promise<TaskEnd<A>> {
    if (this.#closed) return Promise.resolve({ kind: 'closed' })
    return new Promise((resolve) => {
      let done = false
      const job: Job<T, A> = {
        id: this.#nextId++,
        task,
        runningMs: limits.runningMs,
        timer: undefined,
        settle: (end) => {
          if (done) return
          done = true
          clearTimeout(job.timer)
          resolve(end)
        },
      }
      job.timer = setTimeout(() => this.#waitedTooLong(job), limits.waitMs)
      this.#queue.push(job)
      this.#dispatch()
    })
  }

  /** Stops every process (a task still running ends as `died`); the next task starts them again. */
  async stopAll(): Promise<void> {
    const workers = [...this.#workers]
    // Out of the pool at once: a task that arrives while they exit gets a new process, never one
    // of these.
    this.#workers.clear()
    for (const worker of workers) {
      worker.stopped = true
      worker.child.kill('SIGKILL')
    }
    await Promise.all(workers.map((worker) => worker.exited))
  }

  /** Stops every process; tasks waiting or running end as `closed`. */
  async close(): Promise<void> {
    this.#closed = true
    for (const job of this.#queue.splice(0)) job.settle({ kind: 'closed' })
    for (const worker of this.#workers) worker.job?.settle({ kind: 'closed' })
    await this.stopAll()
  }

  #waitedTooLong(job: Job<T, A>): void {
    const queued = this.#queue.indexOf(job)
    if (queued !== -1) this.#queue.splice(queued, 1)
    // Given to a process that never said it started: that process is of no use.
    for (const worker of this.#workers) if (worker.job === job) worker.child.kill('SIGKILL')
    job.settle({ kind: 'waited-too-long' })
  }

  #dispatch(): void {
    while (!this.#closed && this.#queue.length > 0) {
      const idle = [...this.#workers].find((worker) => worker.ready && worker.job === null)
      if (idle !== undefined) {
        this.#give(idle, this.#queue.shift() as Job<T, A>)
        continue
      }
      const starting = [...this.#workers].filter((worker) => !worker.ready).length
      if (this.#workers.size >= this.options.processes || starting >= this.#queue.length) return
      this.#spawn()
    }
  }

  #give(worker: Worker<T, A>, job: Job<T, A>): void {
    worker.job = job
    worker.stderr = ''
    hold(worker.child, true)
    try {
      worker.child.send({ id: job.id, task: job.task } satisfies TaskMessage<T>)
    } catch (error) {
      // A task that cannot cross (a value structured cloning refuses) is the task's failure.
      worker.job = null
      hold(worker.child, false)
      job.settle({
        kind: 'failed',
        message: error instanceof Error ? error.message : String(error),
      })
    }
  }

  #spawn(): void {
    const child = fork(this.options.entryPoint, [], {
      execArgv: [...this.options.execArgv],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    })
    let exited!: () => void
    const worker: Worker<T, A> = {
      child,
      ready: false,
      job: null,
      stderr: '',
      gone: false,
      stopped: false,
      exited: new Promise((resolve) => (exited = resolve)),
    }
    this.#workers.add(worker)
    child.stderr?.setEncoding('utf8')
    child.stderr?.on('data', (text: string) => {
      worker.stderr = (worker.stderr + text).slice(-KEPT_STDERR_CHARS)
    })
    child.on('message', (message: ProcessMessage<A>) => this.#heard(worker, message))
    // Past its start, a child's 'error' (a failed kill or send) is followed by 'close' or by nothing.
    child.on('error', () => {
      if (child.pid === undefined) this.#gone(worker, null, null, exited)
    })
    // 'close' comes once the process has exited and its standard error has been read to its end.
    child.on('close', (code, signal) => this.#gone(worker, code, signal, exited))
  }

  #heard(worker: Worker<T, A>, message: ProcessMessage<A>): void {
    if (message.kind === 'ready') {
      worker.ready = true
      hold(worker.child, false)
      this.#dispatch()
      return
    }
    const job = worker.job
    if (job === null || job.id !== message.id) return
    if (message.kind === 'started') {
      clearTimeout(job.timer)
      job.timer = setTimeout(() => {
        worker.child.kill('SIGKILL')
        job.settle({ kind: 'timed-out' })
      }, job.runningMs)
      return
    }
    worker.job = null
    hold(worker.child, false)
    job.settle(
      message.kind === 'answer'
        ? { kind: 'answered', answer: message.answer }
        : { kind: 'failed', message: message.message },
    )
    this.#dispatch()
  }

  #gone(
    worker: Worker<T, A>,
    code: number | null,
    signal: NodeJS.Signals | null,
    exited: () => void,
  ): void {
    if (worker.gone) return
    worker.gone = true
    this.#workers.delete(worker)
    exited()
    const died: TaskEnd<A> = { kind: 'died', code, signal, stderr: worker.stderr }
    if (worker.job !== null) worker.job.settle(died)
    // A process that died before it could take tasks (its code would not load) fails the oldest
    // waiting task, so that a broken entry point cannot start processes without end.
    else if (!worker.ready && !worker.stopped) this.#queue.shift()?.settle(died)
    worker.job = null
    this.#dispatch()
  }
}

/** Whether a process keeps the server's event loop alive: only while it has a task (or starts). */
function hold(child: ChildProcess, held: boolean): void {
  const stderr = child.stderr as (Readable & { ref?: () => void; unref?: () => void }) | null
  if (held) {
    child.ref()
    child.channel?.ref()
    stderr?.ref?.()
  } else {
    child.unref()
    child.channel?.unref()
    stderr?.unref?.()
  }
}
