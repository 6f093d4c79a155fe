import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Where Floe is installed, and where its files are as it runs. This module is one folder below the
 * package root whether it runs as a TypeScript source (src/, under vitest), as tsc's output (dist/)
 * or bundled into dist/floe.mjs (or a chunk of it under dist/chunks/): every path to a file Floe reads at run time starts here.
 */
const here = path.dirname(fileURLToPath(import.meta.url))
// Bundled code that entry points share runs from dist/chunks/, one folder further down.
export const PACKAGE_ROOT = path.resolve(here, path.basename(here) === 'chunks' ? '../..' : '..')

/** The build: the worker processes' code, the inspector's files, the database template. */
export const BUILD_DIR = path.join(PACKAGE_ROOT, 'dist')

/** The modules as they run: the TypeScript sources under vitest, else the build. */
export const MODULES_DIR = import.meta.url.endsWith('.ts')
  ? path.join(PACKAGE_ROOT, 'src')
  : BUILD_DIR
