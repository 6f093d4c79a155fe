import { readFileSync } from 'node:fs'
import path from 'node:path'
import { PACKAGE_ROOT } from './package-root.js'

/** Floe's version, from its package.json. */
export function packageVersion(): string {
  const pkg: unknown = JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8'))
  return typeof pkg === 'object' &&
    pkg !== null &&
    'version' in pkg &&
    typeof pkg.version === 'string'
    ? pkg.version
    : '0.0.0'
}
