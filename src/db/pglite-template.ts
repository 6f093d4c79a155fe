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

/** A write-ahead log segment: 24 hexadecimal digits, in `pg_wal`. */
const isWalSegment = (file: string) =>
  path.basename(path.dirname(file)) === 'pg_wal' && /^[0-9A-F]{24}$/.test(path.basename(file))

const ZERO_CHUNK = Buffer.alloc(64 * 1024)

/** Where the bytes end that are not all zeros: the zero tail, in chunks from the end. */
function writtenLength(bytes: Buffer): number {
  let end = bytes.length
  while (end > 0) {
    const start = Math.max(0, end - ZERO_CHUNK.length)
    if (bytes.compare(ZERO_CHUNK, 0, end - start, start, end) !== 0) break
    end = start
  }
  while (end > 0 && bytes[end - 1] === 0) end--
  return end
}

/**
 * Copies a file whose end is zeros (a write-ahead log segment: 16 MiB, of which the template's
 * uses a few hundred bytes) as its written part and a hole of the same size, which reads as zeros:
 * the same content, without writing and syncing the zeros.
 */
export function copyWithoutZeroTail(source: string, target: string): void {
  const bytes = fs.readFileSync(source)
  const fd = fs.openSync(target, 'w')
  try {
    const end = writtenLength(bytes)
    for (let at = 0; at < end;) at += fs.writeSync(fd, bytes, at, end - at, at)
    fs.ftruncateSync(fd, bytes.length)
  } finally {
    fs.closeSync(fd)
  }
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
  const segments: string[] = []
  fs.cpSync(template, partial, {
    recursive: true,
    filter: (source) => {
      if (!isWalSegment(source)) return path.basename(source) !== STAMP_FILE
      segments.push(source)
      return false
    },
  })
  for (const segment of segments)
    copyWithoutZeroTail(segment, path.join(partial, path.relative(template, segment)))
  syncTree(partial)
  // Without PG_VERSION, PGlite would run initdb here: whatever is there is not a cluster.
  fs.rmSync(clusterDir, { recursive: true, force: true })
  fs.renameSync(partial, clusterDir)
  syncToDisk(path.dirname(clusterDir))
  return true
}
