import { statSync } from 'node:fs'

/** What a configured path must be. */
export type PathKind = 'file' | 'directory'

/**
 * The problem with a path the configuration names, or null: checked when the configuration is
 * read, so that a start that cannot use it stops before any store is opened or written.
 */
export function pathProblem(value: string | null, kind: PathKind, setting: string): string | null {
  if (value === null) return null
  try {
    const found = statSync(value)
    if (kind === 'directory' ? found.isDirectory() : found.isFile()) return null
    return `${setting}: ${value} is not a ${kind}`
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return `${setting}: ${value} ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? String(error)})`}`
  }
}
