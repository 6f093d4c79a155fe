import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import type { FastifyPluginAsync } from 'fastify'
import { Type } from 'typebox'
import { documentedOnly, textAnswer } from '../http/index.js'

/** Where the console's page and its hashed assets are written by `vite build`. */
export interface ConsoleFilesOptions {
  /** dist/web: index.html and console-assets/. */
  readonly directory: string
}

const ASSETS_FOLDER = 'console-assets'
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
}

/**
 * The page may run only its own script and style and talk only to this server: event fields and
 * schema texts it shows come from anyone who can send an event or a schema, and must never run.
 * Images may also be `blob:` URLs, which the page makes of trigger images it read with its token.
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data: blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

interface ServedFile {
  readonly type: string
  readonly body: Buffer
}

/** The build's files, read at the first request for the console (not at start-up), then kept. */
async function readBuild(directory: string): Promise<Map<string, ServedFile> | null> {
  try {
    const files = new Map<string, ServedFile>()
    files.set('index.html', {
      type: TYPES['.html'] ?? '',
      body: await readFile(path.join(directory, 'index.html')),
    })
    for (const name of await readdir(path.join(directory, ASSETS_FOLDER))) {
      const type = TYPES[path.extname(name)]
      if (type !== undefined)
        files.set(`${ASSETS_FOLDER}/${name}`, {
          type,
          body: await readFile(path.join(directory, ASSETS_FOLDER, name)),
        })
    }
    return files
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

/**
 * The web console at `/`, and its assets at `/console-assets/{file}` (names carry a content hash,
 * so they are cached for a year; the page itself is revalidated). Pages are chosen by the URL's
 * fragment, so no other path is the console's.
 */
export const consoleRoutes: FastifyPluginAsync<ConsoleFilesOptions> = async (app, options) => {
  let build: Promise<Map<string, ServedFile> | null> | null = null
  const files = () => {
    build ??= readBuild(options.directory).catch((error: unknown) => {
      build = null
      throw error
    })
    return build
  }

  const tags = ['Web console']
  const page = {
    schema: {
      tags,
      summary: 'The web console, a page for people',
      response: {
        200: { description: 'The page', content: { 'text/html': { schema: Type.String() } } },
        503: textAnswer('The console is not built (npm run build)'),
      },
    },
    ...documentedOnly,
  }
  const asset = {
    schema: {
      tags,
      summary: "A file of the web console's page (scripts, styles, images)",
      response: {
        200: {
          description: 'The file, by the type of its name',
          content: { '*/*': { schema: Type.String({ format: 'binary' }) } },
        },
        404: textAnswer('No such file: an empty text'),
      },
    },
    ...documentedOnly,
  }
  app.get('/', page, async (_request, reply) => {
    const page = (await files())?.get('index.html')
    if (page === undefined)
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The web console is not built: run `npm run build`.\n')
    return reply
      .type(page.type)
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('x-content-type-options', 'nosniff')
      .header('cache-control', 'no-cache')
      .send(page.body)
  })

  app.get<{ Params: { file: string } }>(
    `/${ASSETS_FOLDER}/:file`,
    asset,
    async (request, reply) => {
      const file = (await files())?.get(`${ASSETS_FOLDER}/${request.params.file}`)
      if (file === undefined) return reply.code(404).type('text/plain; charset=utf-8').send('')
      return reply
        .type(file.type)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(file.body)
    },
  )
}
