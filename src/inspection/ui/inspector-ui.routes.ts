import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { FastifyPluginAsync } from 'fastify'
import { MODULES_DIR } from '../../package-root.js'

/** The page's files, beside this module's source (src/ under vitest, else the build's copy). */
const ASSETS = path.join(MODULES_DIR, 'inspection', 'ui', 'inspector-ui')
const FILES = {
  'index.html': 'text/html; charset=utf-8',
  'inspector.js': 'text/javascript; charset=utf-8',
  'inspector-entries.js': 'text/javascript; charset=utf-8',
  'inspector.css': 'text/css; charset=utf-8',
} as const

/**
 * The page may load only its own script and style and talk only to this server: event fields it
 * shows come from any tracker, and must never run as code, even if one slipped into markup.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/** The page's files, read when the routes are registered (a few kilobytes, once per prefix). */
function pageFiles(): ReadonlyMap<string, { readonly type: string; readonly body: Buffer }> {
  return new Map(
    Object.entries(FILES).map(([name, type]) => [
      name,
      { type, body: readFileSync(path.join(ASSETS, name)) },
    ]),
  )
}

/**
 * The event inspector, a page at `{prefix}/ui/` (Micro serves its UI at `/micro/ui`): the newest
 * events, then each one as it is stored, with filters and each event's JSON. Files are read once,
 * at start-up; any other `{prefix}/ui/...` path is a 404 with an empty body, as in Micro.
 */
export const inspectorUiRoutes: FastifyPluginAsync = async (app) => {
  const served = pageFiles()
  const toPage = {
    schema: {
      tags: ['Event inspection'],
      summary: 'The event inspector, a page for people (its files are under …/ui/)',
      response: { 302: { description: 'To the page, …/ui/', type: 'null' } },
    },
    // Documents only: the answer is a redirect, with no body to shape.
    serializerCompiler: () => () => '',
  }
  app.get('/ui', toPage, async (request, reply) => {
    const query = request.url.indexOf('?')
    return reply.redirect(
      `${request.url.slice(0, query === -1 ? undefined : query)}/${query === -1 ? '' : request.url.slice(query)}`,
      302,
    )
  })
  app.get<{ Params: { '*': string } }>('/ui/*', async (request, reply) => {
    const file = served.get(request.params['*'] === '' ? 'index.html' : request.params['*'])
    if (file === undefined) return reply.code(404).send('')
    return reply
      .type(file.type)
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'no-cache')
      .send(file.body)
  })
}
