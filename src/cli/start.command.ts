import v8 from 'node:v8'
import type { FloeApp } from '../app.js'
import type { StartupCredentials } from '../auth/index.js'
import {
  ConfigError,
  loadConfig,
  readCollectorConfigFile,
  withCollectorFile,
  type ConfigFlags,
} from '../config/index.js'
import { flushLogs, stdoutIsForPrograms } from '../http/index.js'

/**
 * How far past what survived its last full collection V8 lets the heap grow before the next one.
 * Left to itself, V8 lets a busy server's heap grow to ~4× that: under a steady flood, with the
 * memory store full and dropping its oldest events, Floe's resident memory climbed from ~0.6 to
 * ~1.4 GB before each full collection, for ~0.2 GB of live events. At 100% it stays under ~0.85 GB
 * at the same throughput (measured in docs/benchmark-passes.md, fifteenth pass; 50% cost ~10% of GET ingest).
 */
export const HEAP_GROWING_PERCENT = 100

/**
 * The V8 flag that bounds the heap's growth, unless the server's own command line sets it. V8 reads
 * it at each full collection, so it takes effect when set at run time, and `NODE_OPTIONS` refuses it.
 */
export function heapGrowthFlag(execArgv: readonly string[]): string | null {
  return execArgv.some((arg) => arg.startsWith('--heap-growing-percent'))
    ? null
    : `--heap-growing-percent=${HEAP_GROWING_PERCENT}`
}

/** `floe start`: one listener for every service, until SIGINT or SIGTERM. */
export async function runStart(flags: ConfigFlags & { collectorConfig?: string }): Promise<void> {
  const { collectorConfig, ...rest } = flags
  const heapGrowth = heapGrowthFlag(process.execArgv)
  if (heapGrowth !== null) v8.setFlagsFromString(heapGrowth)
  const file = collectorConfig === undefined ? null : await readCollectorConfigFile(collectorConfig)
  const config = loadConfig(file === null ? rest : withCollectorFile(rest, file.settings))
  // The server's code (~3 MB of it) is loaded by this command only: the others do without.
  const { createApp } = await import('../app.js')
  const app = await createApp(config)
  if (file !== null && file.ignored.length > 0)
    app.http.log.info(
      `--collector-config: settings Floe has no use for, ignored: ${file.ignored.join(', ')}`,
    )
  installShutdown(app)
  const address = await listenOrSay(app, () =>
    app.http.listen({ host: config.http.host, port: config.http.port }),
  )
  const publicUrl = publicBaseUrl(address, config.http.host)
  const secureUrl =
    app.secure === null
      ? null
      : publicBaseUrl(await listenOrSay(app, () => app.secure!.listen()), config.http.host)
  // The banner is for people: on stderr when stdout carries events or JSON log lines.
  const banner = stdoutIsForPrograms(config) ? process.stderr : process.stdout
  // The log lines of the start-up come first.
  flushLogs()
  await new Promise<void>((resolve, reject) =>
    banner.write(
      describeStartup(app.startup, publicUrl, {
        inspector: config.inspection.maxEvents > 0,
        secureUrl,
      }),
      (error) => (error ? reject(error) : resolve()),
    ),
  )
  // Only once the secret is written out: a start that stops before shows a new one next time.
  await app.confirmStartupShown()
}

/**
 * A listener's address; when the port is taken or not allowed, the app closed (its store let go)
 * and a ConfigError saying so, printed as one line.
 */
async function listenOrSay(app: FloeApp, listen: () => Promise<string>): Promise<string> {
  try {
    return await listen()
  } catch (error) {
    const { code, address, port, hostname } = error as NodeJS.ErrnoException & {
      address?: string
      port?: number
      hostname?: string
    }
    // The store is let go whatever the failure, so that the next start finds it free.
    await app.close().catch(() => undefined)
    const why: Record<string, string> = {
      EADDRINUSE:
        'it is in use (by another process, or by this one: --port and --tls-port must differ)',
      EACCES: 'this user may not open it',
      EADDRNOTAVAIL: 'it is not an address of this machine',
      ENOTFOUND: 'the host name is not known',
      EAI_AGAIN: 'the host name could not be looked up',
    }
    if (code === undefined || why[code] === undefined) throw error
    const host = address ?? hostname
    const place = host === undefined ? '' : ` ${host}${port === undefined ? '' : `:${port}`}`
    throw new ConfigError([
      `cannot listen on${place}: ${why[code]} (${code}; --host, --port and --tls-port choose others)`,
    ])
  }
}

function installShutdown(app: FloeApp): void {
  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`Second ${signal}: exiting without waiting.\n`)
      process.exit(1)
    }
    stopping = true
    app.http.log.info(
      { signal },
      'shutting down: finishing in-flight requests, then closing the store',
    )
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.http.log.error({ err: error }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
  // A stray rejection must be seen, but must not take down a server that is answering requests.
  process.on('unhandledRejection', (reason) =>
    app.http.log.error({ err: reason }, 'unhandled rejection'),
  )
}

function publicBaseUrl(address: string, host: string): string {
  if (host !== '0.0.0.0' && host !== '::') return address
  return address.replace(/\/\/[^/:]+|\/\/\[[^\]]+\]/, '//localhost')
}

export function describeStartup(
  startup: StartupCredentials,
  baseUrl: string,
  { inspector, secureUrl }: { inspector: boolean; secureUrl: string | null },
): string {
  const lines = [`Floe is listening on ${baseUrl} (docs: ${baseUrl}/docs)`]
  if (secureUrl !== null) lines.push(`and over HTTPS on ${secureUrl}`)
  if (inspector) lines.push(`Events as they arrive: ${baseUrl}/micro/ui/`)
  if (startup.kind === 'initial') {
    lines.push(
      '',
      'This store was empty, so Floe created a default organization and an admin API key.',
      'The secret is shown only this once and cannot be recovered; keep it now.',
      '',
      `  organization id: ${startup.organizationId}`,
      `  API key id:      ${startup.apiKeyId}`,
      `  API key secret:  ${startup.apiKey}`,
      '',
      'Exchange them for an access token (valid for the token TTL):',
      '',
      `  curl -s -H 'X-API-Key-Id: ${startup.apiKeyId}' -H 'X-API-Key: ${startup.apiKey}' \\`,
      `    ${baseUrl}/api/msc/v1/organizations/${startup.organizationId}/credentials/v3/token`,
    )
  } else if (startup.kind === 'bootstrap') {
    const changes = [
      startup.organizationCreated ? 'organization created' : 'organization present',
      startup.keyCreated
        ? 'admin key created'
        : startup.secretChanged
          ? 'admin key secret updated'
          : 'admin key present',
    ]
    lines.push(
      `Bootstrap organization ${startup.organizationId}, key ${startup.apiKeyId}: ${changes.join(', ')}.`,
    )
    if (startup.keyRevoked)
      lines.push('Warning: the bootstrap API key is revoked; tokens cannot be obtained with it.')
  }
  return `${lines.join('\n')}\n`
}
