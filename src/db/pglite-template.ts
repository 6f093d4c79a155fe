import fs from 'node:fs'
import fsp from 'node:fs/promises'
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
async function syncToDisk(entry: string): Promise<void> {
  const handle = await fsp.open(entry, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

/** The folders (parents first) and files under `dir`, as paths relative to it. */
async function treeOf(dir: string): Promise<{ folders: string[]; files: string[] }> {
  const tree = { folders: [] as string[], files: [] as string[] }
  const visit = async (relative: string): Promise<void> => {
    const entries = await fsp.readdir(path.join(dir, relative), { withFileTypes: true })
    for (const entry of entries) {
      const child = path.join(relative, entry.name)
      if (entry.isDirectory()) {
        tree.folders.push(child)
        await visit(child)
      } else tree.files.push(child)
    }
  }
  await visit('')
  return tree
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
export async function copyWithoutZeroTail(source: string, target: string): Promise<void> {
  const bytes = await fsp.readFile(source)
  const handle = await fsp.open(target, 'w')
  try {
    const end = writtenLength(bytes)
    for (let at = 0; at < end;) at += (await handle.write(bytes, at, end - at, at)).bytesWritten
    await handle.truncate(bytes.length)
  } finally {
    await handle.close()
  }
}

/**
 * Puts the template cluster at `clusterDir` when no cluster is there yet (no `PG_VERSION`): copied
 * beside it, synced to disk, then renamed into place, so that a start killed midway leaves either
 * no cluster or a whole one. Resolves whether it did; false also when there is no usable template
 * (a build from another PGlite or other migrations), and PGlite's initdb then makes the cluster.
 *
 * Whether to copy is decided before this returns; the copying itself is asynchronous, so that a
 * first start compiles PGlite's WebAssembly meanwhile (see create-db.ts): a file costs ~1 ms to
 * create on some machines, and the template holds ~450.
 */
export function seedFromTemplate(
  clusterDir: string,
  template = PGLITE_TEMPLATE_DIR,
): Promise<boolean> {
  if (fs.existsSync(path.join(clusterDir, 'PG_VERSION'))) return Promise.resolve(false)
  if (!usableTemplate(template)) return Promise.resolve(false)
  return copyTemplate(clusterDir, template).then(() => true)
}

/**
 * Files copied or synced at once: enough to keep libuv's threads busy, few enough that a system
 * allowing 256 open files (macOS's default) never runs out of them.
 */
const FILES_AT_ONCE = 16

/** `work` for each item, with at most `limit` of them under way at a time. */
async function eachAtMost<T>(
  limit: number,
  items: readonly T[],
  work: (item: T) => Promise<unknown>,
): Promise<void> {
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++] as T)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
}

async function copyTemplate(clusterDir: string, template: string): Promise<void> {
  const partial = `${clusterDir}.partial`
  await fsp.rm(partial, { recursive: true, force: true })
  const { folders, files } = await treeOf(template)
  await fsp.mkdir(partial)
  for (const folder of folders) await fsp.mkdir(path.join(partial, folder))
  const copied = files.filter((file) => path.basename(file) !== STAMP_FILE)
  await eachAtMost(FILES_AT_ONCE, copied, (file) =>
    isWalSegment(file)
      ? copyWithoutZeroTail(path.join(template, file), path.join(partial, file))
      : fsp.copyFile(path.join(template, file), path.join(partial, file)),
  )
  await eachAtMost(FILES_AT_ONCE, [...copied, ...folders], (entry) =>
    syncToDisk(path.join(partial, entry)),
  )
  await syncToDisk(partial)
  // Without PG_VERSION, PGlite would run initdb here: whatever is there is not a cluster.
  await fsp.rm(clusterDir, { recursive: true, force: true })
  await fsp.rename(partial, clusterDir)
  await syncToDisk(path.dirname(clusterDir))
}
