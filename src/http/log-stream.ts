import type { Config } from '../config/index.js'
import { batchedLogWriter, type LogWriter } from './batched-log-writer.js'

function logDestination(config: Config): NodeJS.WriteStream {
  return config.inspection.output === null ? process.stdout : process.stderr
}

/** Whether the log is written as lines for people (asked for, or `auto` on a terminal) rather than JSON. */
function logsForPeople(config: Config): boolean {
  return (
    config.log.format === 'pretty' ||
    (config.log.format === 'auto' && logDestination(config).isTTY === true)
  )
}

/**
 * Whether stdout carries text for programs (printed events, or JSON log lines): what is meant for
 * people, such as the start-up banner, then goes to stderr so that each stdout line stays parseable.
 */
export function stdoutIsForPrograms(config: Config): boolean {
  return config.inspection.output !== null || !logsForPeople(config)
}

/**
 * Where the logs go: stdout, or stderr when stdout carries events (--output-tsv/--output-json); as
 * JSON lines, or as lines for people (time, level, message) when asked or when that is a terminal.
 */
export async function logStream(
  config: Config,
): Promise<{ stream: NodeJS.WritableStream | LogWriter }> {
  return { stream: await logStreamOf(logChoice(config)) }
}

/** How the server logs, decided once on the main thread: another thread logs the same way. */
export interface LogChoice {
  /** 1 (stdout) or 2 (stderr). */
  readonly fd: 1 | 2
  /** Lines for people rather than JSON. */
  readonly pretty: boolean
  /** Colours, on a terminal. */
  readonly colorize: boolean
}

export function logChoice(config: Config): LogChoice {
  const destination = logDestination(config)
  return {
    fd: destination === process.stdout ? 1 : 2,
    pretty: logsForPeople(config),
    colorize: destination.isTTY === true,
  }
}

/** The stream a logger writes to, as `choice` says. */
export async function logStreamOf(choice: LogChoice): Promise<NodeJS.WritableStream | LogWriter> {
  if (choice.pretty) {
    // Loaded only for people: a server logging JSON never loads it.
    const { default: pinoPretty } = await import('pino-pretty')
    return pinoPretty({
      destination: choice.fd,
      sync: true,
      colorize: choice.colorize,
      singleLine: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
    })
  }
  // JSON: written in batches (see batchedLogWriter).
  return batchedLogWriter(choice.fd)
}
