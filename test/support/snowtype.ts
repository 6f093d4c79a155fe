import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { promisify } from 'node:util'
import type { TestApp } from './test-app.js'

const run = promisify(execFile)

/**
 * The real snowtype CLI's entry point. snowtype (under a non-commercial licence) is a pinned
 * devDependency: `npm ci` installs it from npm into node_modules, and nothing of it is in the
 * repository.
 */
export function snowtypeBin(): string {
  const require = createRequire(import.meta.url)
  const pkg = require.resolve('@snowplow/snowtype/package.json')
  const manifest = JSON.parse(readFileSync(pkg, 'utf8')) as {
    bin?: string | Record<string, string>
  }
  const bin =
    typeof manifest.bin === 'string' ? manifest.bin : (manifest.bin?.snowtype ?? 'dist/index.js')
  return path.join(path.dirname(pkg), bin)
}

/** Writes the `.env` that points snowtype at this Floe's Console API with its initial API key. */
export function writeSnowtypeEnv(project: string, server: TestApp): void {
  const startup = server.app.startup
  if (startup.kind !== 'initial') throw new Error('expected initial credentials')
  writeFileSync(
    path.join(project, '.env'),
    `SNOWPLOW_CONSOLE_API_URL=${server.baseUrl}/api/msc\nSNOWPLOW_CONSOLE_API_KEY_ID=${startup.apiKeyId}\nSNOWPLOW_CONSOLE_API_KEY=${startup.apiKey}\n`,
  )
}

/** Runs a snowtype command in the project, failing with its output when it fails. */
export async function runSnowtype(
  project: string,
  command: string,
): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [snowtypeBin(), command], {
    cwd: project,
    timeout: 120_000,
  }).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`snowtype ${command} failed:\n${error.stdout ?? ''}\n${error.stderr ?? ''}`)
  })
}
