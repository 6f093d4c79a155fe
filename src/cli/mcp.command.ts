import { createInterface } from 'node:readline'
import { loadConsoleClientConfig, type ConsoleClientFlags } from '../config/index.js'
import { ConsoleApiClient, ConsoleApiError } from './console-api-client.js'

/** What the server's `/mcp` needs of a request to answer it as JSON. */
const MCP_HEADERS = { accept: 'application/json, text/event-stream' }

/**
 * Whom an error answer to a message goes to: its request's id, `null` for a message that is no
 * request at all (JSON-RPC answers those with a null id), or `undefined` for a notification (never
 * answered).
 */
function answerId(message: unknown): string | number | null | undefined {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return null
  const { id, method } = message as { id?: unknown; method?: unknown }
  if (typeof id === 'string' || typeof id === 'number') return id
  return typeof method === 'string' && id === undefined ? undefined : null
}

/** A JSON-RPC error answer to a message, as a line, or null for a notification. */
function errorLine(message: unknown, code: number, text: string): string | null {
  const id = answerId(message)
  if (id === undefined) return null
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message: text } })
}

/**
 * `floe mcp`: Floe's MCP server over stdio, for a coding assistant on this machine. Each message
 * the assistant writes (a line of JSON-RPC) is sent as it is to the `/mcp` endpoint of the Floe
 * the flags or snowtype's variables name, with the key's token, and the answer is written back as
 * a line: the server's tools, its rules (which organization may read the inspected events) and its
 * bounds apply unchanged, and the message's numbers reach it as written. Requests go on at once,
 * each answered when the server answers; the command ends once the assistant closes its input and
 * every request is answered.
 */
export async function runMcpCommand(flags: ConsoleClientFlags): Promise<void> {
  const client = await ConsoleApiClient.connect(loadConsoleClientConfig(flags))
  const write = (line: string) => void process.stdout.write(`${line}\n`)
  const forward = async (line: string) => {
    let message: unknown
    try {
      message = JSON.parse(line)
    } catch {
      write(errorLine(null, -32700, 'Parse error') ?? '')
      return
    }
    try {
      const answer = await client.serverCall('POST', '/mcp', line, MCP_HEADERS)
      const text = answer.text.trim()
      if (answer.status === 200 && text !== '') write(text.replace(/\r?\n/g, ' '))
      else if (answer.status >= 300) {
        // An answer of JSON-RPC (a refused batch, say) is the assistant's to read; else one is made.
        const said = text.startsWith('{') && text.includes('"jsonrpc"') ? text : null
        const made = errorLine(
          message,
          -32603,
          `Floe answered ${answer.status}: ${text.slice(0, 500)}`,
        )
        if (said !== null) write(said.replace(/\r?\n/g, ' '))
        else if (made !== null) write(made)
      }
    } catch (error) {
      if (!(error instanceof ConsoleApiError)) throw error
      const made = errorLine(message, -32603, error.message)
      if (made !== null) write(made)
      process.stderr.write(`floe mcp: ${error.message}\n`)
    }
  }
  const pending = new Set<Promise<void>>()
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (line.trim() === '') continue
    const sent = forward(line).finally(() => pending.delete(sent))
    pending.add(sent)
  }
  await Promise.all(pending)
}
