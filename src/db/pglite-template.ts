import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { BUILD_DIR } from '../package-root.js'
import { migrations } from './migrations/index.js'

/**
 * A new data directory starts from a migrated, empty cluster built with Floe
 * (`scripts/build-pglite-template.mjs`, part of `npm run build`), copied into place, instead of
 * PGlite's initdb plus every migration: ~0.1 s instead of ~3 s, and none of the WASM memory that
 * initdb leaves behind.
 */
export const PGLITE_TEMPLATE_DIR = path.join(BUILD_DIR, 'db', 'pgdata-template')
const STAMP_FILE = 'floe-template.json'
/** The template's own layout, raised when its build changes (2: without the template databases). */
const TEMPLATE_LAYOUT = 2

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

/** Writes a file's or folder's content to disk (a folder: its entries, created or renamed). */
function syncToDisk(entry: string): void {
  const fd = fs.openSync(entry, 'r')
  try {
    fs.fsyncSync(fd)
  } finally {
    fs.closeSync(fd)
  }
}

function syncTree(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const where = path.join(dir, entry.name)
    if (entry.isDirectory()) syncTree(where)
    else syncToDisk(where)
  }
  syncToDisk(dir)
}

/**
 * Puts the template cluster at `clusterDir` when no cluster is there yet (no `PG_VERSION`): copied
 * beside it, synced to disk, then renamed into place, so that a start killed midway leaves either
 * no cluster or a whole one. Returns whether it did; false also when there is no usable template
 * (a build from another PGlite or other migrations), and PGlite's initdb then makes the cluster.
 */
export function seedFromTemplate(clusterDir: string, template = PGLITE_TEMPLATE_DIR): boolean {
  if (fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) return false
  if (!usableTemplate(template)) return false
  const partial = `${clusterDir}.partial`
  fs.rmSync(partial, { recursive: true, force: true })
  fs.cpSync(template, partial, {
    recursive: true,
    filter: (source) => path.basename(source) !== STAMP_FILE,
  })
  syncTree(partial)
  // Without PG_VERSION, PGlite would run initdb here: whatever is there is not a cluster.
  fs.rmSync(clusterDir, { recursive: true, force: true })
  fs.renameSync(partial, clusterDir)
  syncToDisk(path.dirname(clusterDir))
  return true
}
