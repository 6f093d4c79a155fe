import fs from 'node:fs'
import path from 'node:path'
import { PGlite, type PGliteOptions } from '@electric-sql/pglite'
import { NodeFS } from '@electric-sql/pglite/nodefs'
import { refusingAfterBackendLoss } from './backend-loss.js'
import { markOpened, seedFromTemplate } from './pglite-template.js'
import { PostgresLog } from './postgres-log.js'

/**
 * An embedded PostgreSQL cluster (PGlite), made the same way on the main thread and in the thread
 * of its own that `--storage postgres` gives it (pglite-thread.ts).
 */

/** Folder of the embedded PostgreSQL cluster inside Floe's data directory. */
export function pgliteClusterDir(dataDir: string): string {
  return path.join(dataDir, 'pgdata')
}

/**
 * PGlite's own defaults keep committed transactions through a crash of the process (every write
 * reaches the operating system at once) but not through a power failure or a crash of the system:
 * it starts PostgreSQL with `-F` (fsync off), and the Emscripten file system that carries the data
 * directory to Node (NODEFS) has no fsync at all, while `fdatasync` is a no-op in Emscripten
 * (`relaxedDurability` is another matter: whether a query waits for PGlite's own copy to a browser's
 * storage, never used with a directory). So the directory's file system gets an fsync that syncs the
 * real file, and PostgreSQL runs with fsync on and syncs its WAL with fsync(): a commit is answered
 * once its WAL is on disk, and checkpoints sync the data files as on any server.
 */
class DurableNodeFS extends NodeFS {
  /** `seeded`: the cluster's copy from the template, awaited before PGlite first reads the directory. */
  constructor(
    clusterDir: string,
    private readonly seeded: Promise<unknown>,
  ) {
    super(clusterDir)
    // Its failure is PGlite's to report, when it starts; until then it must not count as unhandled.
    seeded.catch(() => undefined)
  }

  /**
   * PGlite calls this once its WebAssembly is compiled and instantiated, and reads the directory
   * only after: a first start copies the template meanwhile (~0.15 s of the copy's ~0.4 s here).
   * NODEFS goes by path, so the directory renamed into place under its mount is the one it reads.
   */
  override async initialSyncFs(): Promise<void> {
    await this.seeded
    return super.initialSyncFs()
  }

  override async init(...args: Parameters<NodeFS['init']>): ReturnType<NodeFS['init']> {
    const { emscriptenOpts } = await super.init(...args)
    const syncToDisk = (module: { NODEFS: unknown }) => {
      // NodeFS mounts NODEFS in an earlier preRun step; every file it opens shares these stream operations.
      const operations = (module.NODEFS as { stream_ops?: Record<string, unknown> } | undefined)
        ?.stream_ops
      if (operations === undefined)
        throw new Error('PGlite changed: its NODEFS has no stream operations to give an fsync to')
      operations.fsync = (stream: { nfd?: number }) => {
        if (stream.nfd !== undefined) fs.fsyncSync(stream.nfd)
        return 0
      }
    }
    return {
      emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), syncToDisk] },
    }
  }
}

/** PGlite's start parameters with Floe's memory settings. */
function memorySettings(sharedBuffersMb: number): string[] {
  return [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffersMb}MB`]
}

/** The options of a PGlite cluster in a directory, with durable commits (see DurableNodeFS). */
function durablePgliteOptions(
  clusterDir: string,
  seeded: Promise<unknown>,
  sharedBuffersMb: number,
): PGliteOptions {
  const startParams = [
    ...memorySettings(sharedBuffersMb).filter((parameter) => parameter !== '-F'),
    '-c',
    'fsync=on',
    '-c',
    'synchronous_commit=on',
    '-c',
    'wal_sync_method=fsync',
  ]
  return { fs: new DurableNodeFS(clusterDir, seeded), startParams }
}

/** Where a cluster lives and how much shared memory it gets. */
export interface PgliteClusterPlace {
  /** Floe's data directory (the cluster in its `pgdata`), or null: in memory. */
  readonly dataDir: string | null
  /** PostgreSQL's `shared_buffers`, in MB. */
  readonly sharedBuffersMb: number
}

/**
 * A new PGlite cluster, starting. A new data directory starts from the migrated template, copied
 * while PGlite compiles its WebAssembly (see DurableNodeFS); in memory there is nothing to copy or
 * sync. Once its backend is lost it refuses every message (backend-loss.ts).
 */
export function newPgliteCluster({ dataDir, sharedBuffersMb }: PgliteClusterPlace): PGlite {
  if (dataDir === null)
    return refusingAfterBackendLoss(
      startedCluster({ startParams: memorySettings(sharedBuffersMb) }, async () => undefined),
    )
  const clusterDir = pgliteClusterDir(dataDir)
  return refusingAfterBackendLoss(
    startedCluster(
      durablePgliteOptions(clusterDir, seedFromTemplate(clusterDir), sharedBuffersMb),
      () => markOpened(clusterDir),
    ),
  )
}

/**
 * A cluster whose failure to start says what PostgreSQL logged about it (see PostgresLog): PGlite's
 * own error for it is Emscripten's `Aborted()`, or "PGlite failed to initialize properly". Once it
 * has started, `started` runs before its first statement: until it is done, the cluster is not
 * `ready` and `waitReady` waits for it (the two a statement's caller goes by; Kysely's driver does).
 */
function startedCluster(options: PGliteOptions, started: () => Promise<void>): PGlite {
  const log = new PostgresLog()
  const pglite = new PGlite({ ...options, onStderr: log.take })
  const startedReady = Object.getOwnPropertyDescriptor(PGlite.prototype, 'ready')?.get
  if (startedReady === undefined) throw new Error('PGlite changed: it has no `ready` getter')
  let done = false
  const ready = pglite.waitReady.then(
    async () => {
      await started()
      done = true
    },
    (error: unknown) => {
      throw log.explain(error)
    },
  )
  // Own properties over PGlite's (a field and a getter of its prototype).
  Object.defineProperty(pglite, 'waitReady', { value: ready })
  Object.defineProperty(pglite, 'ready', {
    get: () => done && (startedReady.call(pglite) as boolean),
  })
  return pglite
}
