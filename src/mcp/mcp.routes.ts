import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  InjectOptions,
} from 'fastify'
import { jsonOrText, organizationPath, type FloeApi } from './floe-api.js'

export interface McpRoutesOptions {
  /** Who the bearer token is (a 401 otherwise). */
  readonly principalOf: (request: FastifyRequest) => Promise<{ readonly organizationId: string }>
  /** The server's own routes, for the tools: each call carries the caller's token. */
  readonly inject: FastifyInstance['inject']
  readonly version: string
  /**
   * The organization whose events inspection checks: the inspection tools (`/micro/...`: events,
   * coverage of its tracking plan) answer its tokens only.
   */
  readonly inspectedOrganizationId: string | null
}

/** What an inspection tool answers a token of another organization than the inspected one. */
function notInspected(organizationId: string) {
  const text = JSON.stringify({
    message: `Event inspection checks events for another organization than this token's (${organizationId}): its events and coverage are not this token's to read`,
    code: 'NOT_INSPECTED_ORGANIZATION',
  })
  return { status: 403, body: jsonOrText(text), text }
}

/**
 * `POST /mcp`: Floe's MCP server over streamable HTTP, stateless (each request its own server and
 * transport), behind the Console API's bearer auth. The SDK is loaded at the first request.
 */
export const mcpRoutes: FastifyPluginAsync<McpRoutesOptions> = async (app, options) => {
  app.post('/mcp', async (request, reply) => {
    const { organizationId } = await options.principalOf(request)
    const [{ createFloeMcpServer }, { StreamableHTTPServerTransport }] = await Promise.all([
      import('./floe-mcp-server.js'),
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    ])
    const authorization = request.headers.authorization ?? ''
    const api: FloeApi = {
      call: async (method, path, body) => {
        if (!path.startsWith('{org}') && organizationId !== options.inspectedOrganizationId)
          return notInspected(organizationId)
        const injected: InjectOptions = {
          method,
          url: organizationPath(organizationId, path),
          headers: {
            authorization,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        }
        const response = await options.inject(injected)
        return {
          status: response.statusCode,
          body: jsonOrText(response.body),
          text: response.body,
        }
      },
    }
    const server = await createFloeMcpServer(api, options.version)
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    })
    reply.hijack()
    reply.raw.on('close', () => {
      void transport.close()
      void server.close()
    })
    await server.connect(transport)
    await transport.handleRequest(request.raw, reply.raw, request.body)
  })

  // Stateless: there is no stream to open and no session to end.
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.code(405).send({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: POST JSON-RPC requests to /mcp' },
      id: null,
    })
  app.get('/mcp', notAllowed)
  app.delete('/mcp', notAllowed)
}
