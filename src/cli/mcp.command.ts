import { loadConsoleClientConfig, type ConsoleClientFlags } from '../config/index.js'
import { jsonOrText, organizationPath, type FloeApi } from '../mcp/index.js'
import { packageVersion } from '../package-version.js'
import { ConsoleApiClient } from './console-api-client.js'

/**
 * `floe mcp`: Floe's MCP server over stdio, for a coding assistant on this machine, answering from
 * the Floe the flags or snowtype's variables name. Runs until the assistant closes its input.
 */
export async function runMcpCommand(flags: ConsoleClientFlags): Promise<void> {
  const client = await ConsoleApiClient.connect(loadConsoleClientConfig(flags))
  const [{ createFloeMcpServer }, { StdioServerTransport }] = await Promise.all([
    import('../mcp/floe-mcp-server.js'),
    import('@modelcontextprotocol/sdk/server/stdio.js'),
  ])
  const api: FloeApi = {
    call: async (method, path, body) => {
      const answer = await client.serverCall(
        method,
        organizationPath(client.organizationId, path),
        body === undefined ? undefined : JSON.stringify(body),
      )
      return { status: answer.status, body: jsonOrText(answer.text), text: answer.text }
    },
  }
  const server = await createFloeMcpServer(api, packageVersion())
  await server.connect(new StdioServerTransport())
}
