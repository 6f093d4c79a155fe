// Builds (npm run build) only when the build is missing or older than what it is built from:
// `npm start` and `npm test` then start at once on a current build, and never rebuild for nothing.
// The build itself runs at install time too (the `prepare` script).
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const stamp = path.join(root, 'dist', '.build-stamp')

/** The newest modification time under a folder (or of a file), in ms. */
function newest(entry) {
  const stats = statSync(entry)
  if (!stats.isDirectory()) return stats.mtimeMs
  return readdirSync(entry).reduce(
    (latest, name) => Math.max(latest, newest(path.join(entry, name))),
    stats.mtimeMs,
  )
}

const sources = [
  'src',
  'web',
  'scripts',
  'package.json',
  'package-lock.json',
  'tsconfig.base.json',
  'tsconfig.build.json',
].map((name) => path.join(root, name))
const built = existsSync(stamp) ? statSync(stamp).mtimeMs : -Infinity
const changed = Math.max(...sources.filter((file) => existsSync(file)).map(newest))
if (changed > built) {
  process.stderr.write('floe: the build is missing or older than the sources: npm run build\n')
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] })
}
