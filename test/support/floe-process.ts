import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

const MAIN = fileURLToPath(new URL('../../dist/floe.mjs', import.meta.url))
const run = promisify(execFile)

/** `floe start` as a child process, as a user runs it (needs `npm run build` first, which `npm test` does). */
export interface FloeProcess {
  readonly child: ChildProcess
  readonly baseUrl: string
  /**
   * The start-up banner, from its listening line: on stderr when stdout carries JSON log lines (a
   * child's stdout is no terminal) or events, on stdout with `--log-format pretty`.
   */
  readonly banner: string
  /** Everything printed on stdout so far (the logs, unless events are printed there). */
  stdout(): string
  /** Everything printed on stderr so far: the banner, and the logs with --output-tsv/--output-json. */
  stderr(): string
  /** stderr without the banner: what else the server printed there. */
  stderrBesideBanner(): string
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** `floe start` on a free port, without waiting for it: the child and when it exits. */
export function launchFloe(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawn(
    process.execPath,
    [MAIN, 'start', '--host', '127.0.0.1', '--port', '0', '--log-level', 'warn', ...args],
    {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  return {
    child,
    exited: new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))),
  }
}

/** How long `floe start` may take to show its banner (a test's own timeout is 60 s). */
const BANNER_DEADLINE_MS = 45_000

export async function startFloe(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<FloeProcess> {
  const { child, exited } = launchFloe(args, env)
  let stdout = ''
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const banner = await new Promise<string>((resolve, reject) => {
    // A start that never shows its banner is stopped, not left running after the test gives up.
    const deadline = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`no banner within ${BANNER_DEADLINE_MS} ms:\n${stdout}\n${stderr}`))
    }, BANNER_DEADLINE_MS)
    const lookForBanner = () => {
      const output = stderr.includes('Floe is listening on') ? stderr : stdout
      const start = output.indexOf('Floe is listening on')
      if (start < 0) return
      const text = output.slice(start)
      // With first-start credentials the banner ends with the curl line.
      const complete = text.includes('This store was empty')
        ? text.includes('/credentials/v3/token\n')
        : text.endsWith('\n')
      if (!complete) return
      clearTimeout(deadline)
      resolve(text)
    }
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      lookForBanner()
    })
    child.stderr?.on('data', lookForBanner)
    void exited.then((code) => {
      clearTimeout(deadline)
      reject(new Error(`floe start exited with ${code}: ${stderr}`))
    })
  })
  const baseUrl = /Floe is listening on (\S+)/.exec(banner)?.[1] ?? ''
  return {
    child,
    baseUrl,
    banner,
    stdout: () => stdout,
    stderr: () => stderr,
    stderrBesideBanner: () => stderr.replace(banner, ''),
    stop: (signal = 'SIGTERM') => {
      child.kill(signal)
      return exited
    },
  }
}

/** Runs a one-shot CLI command such as `keys list`; resolves even when it fails. */
export async function floeCli(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [MAIN, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string }
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' }
  }
}
