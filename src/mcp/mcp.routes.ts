import type {
  FastifyError,
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  InjectOptions,
} from 'fastify'
import { Type } from 'typebox'
import { documentedOnly, ErrorBodyRef, INVALID_JSON_BODY } from '../http/index.js'
import { organizationPath, requestText, type FloeApi } from './floe-api.js'

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
  return { status: 403, text }
}

/** The headers a route reads to write links to itself: as the MCP request came. */
function forwardedHeaders(request: FastifyRequest): Record<string, string> {
  const forwarded: Record<string, string> = {}
  for (const name of ['host', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-port']) {
    const value = request.headers[name]
    if (typeof value === 'string') forwarded[name] = value
  }
  return forwarded
}

/**
 * A body that is not JSON is answered as JSON-RPC says (-32700, `id: null`); any other error goes
 * on to the server's own error handler.
 */
function jsonRpcParseError(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const notJson = [
    INVALID_JSON_BODY,
    'FST_ERR_CTP_INVALID_JSON_BODY',
    'FST_ERR_CTP_EMPTY_JSON_BODY',
  ].includes(error.code)
  if (!notJson) throw error
  void reply.code(400).send({
    jsonrpc: '2.0',
    error: { code: -32700, message: `Parse error: ${error.message}` },
    id: null,
  })
}

/** A JSON-RPC error answer, as the API document shows it. */
const JsonRpcError = Type.Object({
  jsonrpc: Type.Literal('2.0'),
  error: Type.Object({ code: Type.Integer(), message: Type.String() }),
  id: Type.Null(),
})

/** The most messages one request to `/mcp` may carry: each tool answer may be a megabyte. */
export const MAX_MCP_BATCH = 10

/**
 * `POST /mcp`: Floe's MCP server over streamable HTTP, stateless (each request its own server and
 * transport), behind the Console API's bearer auth. The SDK is loaded at the first request.
 */
export const mcpRoutes: FastifyPluginAsync<McpRoutesOptions> = async (app, options) => {
  const schema = {
    summary:
      'Floe’s MCP server (streamable HTTP, stateless): JSON-RPC messages, at most 10 a batch (docs/mcp.md)',
    tags: ['mcp'],
    security: [{ bearer: [] }],
    response: {
      200: {
        description: 'The JSON-RPC answer, or the batch of answers',
        content: { 'application/json': { schema: {} } },
      },
      202: { description: 'Notifications only: nothing to answer', type: 'null' },
      400: {
        description: 'Not JSON, or a batch that is empty or too large: a JSON-RPC error',
        content: { 'application/json': { schema: JsonRpcError } },
      },
      401: ErrorBodyRef,
      406: {
        description: 'The request does not accept both application/json and text/event-stream',
        content: { 'application/json': { schema: JsonRpcError } },
      },
    },
  }
  app.post(
    '/mcp',
    { schema, errorHandler: jsonRpcParseError, ...documentedOnly },
    async (request, reply) => {
      const { organizationId } = await options.principalOf(request)
      const batchProblem = !Array.isArray(request.body)
        ? null
        : request.body.length === 0
          ? 'An empty batch is no request (JSON-RPC 2.0: a batch holds at least one message)'
          : request.body.length > MAX_MCP_BATCH
            ? `A batch may hold at most ${MAX_MCP_BATCH} messages; this one holds ${request.body.length}`
            : null
      if (batchProblem !== null)
        return reply.code(400).send({
          jsonrpc: '2.0',
          error: { code: -32600, message: batchProblem },
          id: null,
        })
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
            // The caller's host, so that the links an answer makes point where the caller sent it.
            headers: {
              authorization,
              ...forwardedHeaders(request),
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            },
            ...(body === undefined ? {} : { payload: requestText(body) }),
          }
          const response = await options.inject(injected)
          return { status: response.statusCode, text: response.body }
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
    },
  )

  // Stateless: there is no stream to open and no session to end.
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.code(405).send({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: POST JSON-RPC requests to /mcp' },
      id: null,
    })
  app.get('/mcp', { schema: { hide: true } }, notAllowed)
  app.delete('/mcp', { schema: { hide: true } }, notAllowed)
}
