import type { Config } from '../config/index.js'
import { batchedLogWriter, type LogWriter } from './batched-log-writer.js'

/**
 * Where the logs go: stdout, or stderr when stdout carries events (--output-tsv/--output-json); as
 * JSON lines, or as lines for people (time, level, message) when asked or when that is a terminal.
 */
export async function logStream(
  config: Config,
): Promise<{ stream: NodeJS.WritableStream | LogWriter }> {
  const destination = config.inspection.output === null ? process.stdout : process.stderr
  const terminal = destination.isTTY === true
  if (config.log.format === 'pretty' || (config.log.format === 'auto' && terminal)) {
    // Loaded only for people: a server logging JSON never loads it.
    const { default: pinoPretty } = await import('pino-pretty')
    return {
      stream: pinoPretty({
        destination: destination === process.stdout ? 1 : 2,
        sync: true,
        colorize: terminal,
        singleLine: true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname',
      }),
    }
  }
  // JSON: written in batches (see batchedLogWriter).
  return { stream: batchedLogWriter(destination === process.stdout ? 1 : 2) }
}
