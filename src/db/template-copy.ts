import fsp from 'node:fs/promises'
import path from 'node:path'

// The copy of the embedded database's template into a new data directory: plain file work, run in
// a thread of its own (template-copy.worker.ts), so that it goes on while the main thread is busy
// starting PGlite.

/** The name of the template's stamp file, which is not copied. */
export const STAMP_FILE = 'floe-template.json'

/**
 * A file put in each copy, removed once PGlite has started on it (pglite-cluster.ts): a cluster
 * holding it was never opened to the end, so it holds nothing of the user's, and the next start
 * copies the template over it instead of opening it (see seedFromTemplate).
 */
export const UNOPENED_MARKER = 'floe-unopened-copy'

/** Writes a file's or folder's content to disk (a folder: its entries, created or renamed). */
export async function syncToDisk(entry: string): Promise<void> {
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

export async function copyTemplate(clusterDir: string, template: string): Promise<void> {
  const partial = `${clusterDir}.partial`
  await fsp.rm(partial, { recursive: true, force: true })
  const { folders, files } = await treeOf(template)
  // Its owner's only, as PostgreSQL keeps a data directory (see `keepToOwner`).
  await fsp.mkdir(partial, { mode: 0o700 })
  for (const folder of folders) await fsp.mkdir(path.join(partial, folder))
  const copied = files.filter((file) => path.basename(file) !== STAMP_FILE)
  await eachAtMost(FILES_AT_ONCE, copied, (file) =>
    isWalSegment(file)
      ? copyWithoutZeroTail(path.join(template, file), path.join(partial, file))
      : fsp.copyFile(path.join(template, file), path.join(partial, file)),
  )
  await fsp.writeFile(path.join(partial, UNOPENED_MARKER), '')
  await eachAtMost(FILES_AT_ONCE, [...copied, UNOPENED_MARKER, ...folders], (entry) =>
    syncToDisk(path.join(partial, entry)),
  )
  await syncToDisk(partial)
  await renameIntoPlace(partial, clusterDir)
  await syncToDisk(path.dirname(clusterDir))
}

/** Errors of a rename that cannot replace a folder where the system allows no such thing (Windows). */
const FOLDER_IN_THE_WAY = new Set(['EPERM', 'EEXIST', 'ENOTEMPTY', 'EISDIR', 'EACCES'])

/**
 * Puts the copy at `clusterDir` in one rename, over the empty folder PGlite made there. PGlite
 * mounts that folder while the copy runs (it reads it only once the copy is done), and a start
 * that finds it missing fails: removing it first left a moment without it, which a start under
 * load met now and then. Whatever an interrupted start left in it (no `PG_VERSION`: not a
 * cluster) is removed first, the folder itself kept.
 */
async function renameIntoPlace(partial: string, clusterDir: string): Promise<void> {
  const leftovers = await fsp.readdir(clusterDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return []
    throw error
  })
  for (const entry of leftovers)
    await fsp.rm(path.join(clusterDir, entry), { recursive: true, force: true })
  try {
    await fsp.rename(partial, clusterDir)
  } catch (error) {
    if (!FOLDER_IN_THE_WAY.has(String((error as NodeJS.ErrnoException).code))) throw error
    await fsp.rm(clusterDir, { recursive: true, force: true })
    await fsp.rename(partial, clusterDir)
  }
}
