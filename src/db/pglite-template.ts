import fs from 'node:fs'
import fsp from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { BUILD_DIR } from '../package-root.js'
import { migrations } from './migrations/index.js'
import { STAMP_FILE, syncToDisk, UNOPENED_MARKER } from './template-copy.js'
import type { TemplateCopyOrder, TemplateCopyOutcome } from './template-copy.worker.js'

/**
 * A new data directory starts from a migrated, empty cluster built with Floe
 * (`scripts/build-pglite-template.mjs`, part of `npm run build`), copied into place, instead of
 * PGlite's initdb plus every migration: ~0.1 s instead of ~3 s, and none of the WASM memory that
 * initdb leaves behind.
 */
export const PGLITE_TEMPLATE_DIR = path.join(BUILD_DIR, 'db', 'pgdata-template')
/**
 * The template's own layout, raised when its build changes (2: without the template databases; 3:
 * its write-ahead log switched to a fresh segment before the last checkpoint).
 */
const TEMPLATE_LAYOUT = 3

/** What the template was built from: a template whose stamp differs is not used. */
export function templateStamp(): string {
  const require = createRequire(import.meta.url)
  const manifest = path.join(
    path.dirname(require.resolve('@electric-sql/pglite')),
    '..',
    'package.json',
  )
  const { version } = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string }
  return JSON.stringify({
    layout: TEMPLATE_LAYOUT,
    pglite: version,
    migrations: Object.keys(migrations),
  })
}

function usableTemplate(template: string): boolean {
  try {
    return fs.readFileSync(path.join(template, STAMP_FILE), 'utf8') === templateStamp()
  } catch {
    return false
  }
}

/**
 * Puts the template cluster at `clusterDir` when no cluster is there yet (no `PG_VERSION`), or only
 * a copy that PGlite never finished starting on (its UNOPENED_MARKER still there: it holds nothing
 * of the user's, and a start killed while PostgreSQL first wrote to it must not leave a folder that
 * no longer opens): copied beside it, synced to disk, then renamed into place, so that a start
 * killed midway leaves either no cluster or a whole one. Resolves whether it did; false also when
 * there is no usable template (a build from another PGlite or other migrations), and PGlite's
 * initdb then makes the cluster, or opens the copy that is there.
 *
 * Whether to copy is decided before this returns; the copying itself runs in a thread of its own,
 * so that a first start compiles and starts PGlite's WebAssembly meanwhile (see create-db.ts): a
 * file costs ~1 ms to create on some machines, the template holds ~450, and on the main thread,
 * busy starting PGlite, each file waited for a turn of the event loop (the copy took ~0.6 s there,
 * against ~0.2 s in a thread of its own).
 */
export function seedFromTemplate(
  clusterDir: string,
  template = PGLITE_TEMPLATE_DIR,
): Promise<boolean> {
  const unopenedCopy = fs.existsSync(path.join(clusterDir, UNOPENED_MARKER))
  if (fs.existsSync(path.join(clusterDir, 'PG_VERSION')) && !unopenedCopy) {
    keepToOwner(clusterDir)
    return Promise.resolve(false)
  }
  if (!usableTemplate(template)) return Promise.resolve(false)
  return copyInThread({ clusterDir, template }).then(() => true)
}

/**
 * The cluster holds the token signing secret and every key's hash: like PostgreSQL's own data
 * directory, only its owner may enter it. A cluster copied before 2026-11-29 was open to all
 * (0755); it is closed at the next start.
 */
function keepToOwner(clusterDir: string): void {
  const mode = fs.statSync(clusterDir).mode & 0o777
  if ((mode & 0o077) !== 0) fs.chmodSync(clusterDir, mode & 0o700)
}

/** The copy's code, built by tsc (the copy runs in a thread of its own). */
const copyWorkerFile = () => path.join(BUILD_DIR, 'db', 'template-copy.worker.js')

/** Runs `copyTemplate` in a worker thread; rejects with the copy's error (its message and code). */
function copyInThread(order: TemplateCopyOrder): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const worker = new Worker(copyWorkerFile(), { workerData: order })
    let outcome: TemplateCopyOutcome | null = null
    worker.once('message', (message: TemplateCopyOutcome) => (outcome = message))
    worker.once('error', reject)
    worker.once('exit', (code) => {
      if (outcome?.ok === true) return resolve()
      if (outcome === null)
        return reject(new Error(`the template copy's thread exited with code ${code}`))
      reject(
        Object.assign(
          new Error(outcome.message),
          outcome.code === null ? {} : { code: outcome.code },
        ),
      )
    })
  })
}

/**
 * Says that PGlite has started on the cluster at `clusterDir` (a copy of the template becomes a
 * cluster like any other: removes its UNOPENED_MARKER, the removal synced to disk before the first
 * statement can write anything of the user's).
 */
export async function markOpened(clusterDir: string): Promise<void> {
  try {
    await fsp.unlink(path.join(clusterDir, UNOPENED_MARKER))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
    throw error
  }
  await syncToDisk(clusterDir)
}
