import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConsoleApiClient, pullSchemasCommand } from '../src/cli/index.js'
import type { ConsoleClientConfig } from '../src/config/index.js'

// The command line against a server that answers what Floe never would: errors, other shapes,
// nothing at all. Each is named in one line, and `pull` says what it could not pull (exit 1).

const ORG = '0f2d3c4b-5a69-4788-9a0b-1c2d3e4f5a6b'
const root = mkdtempSync(path.join(tmpdir(), 'floe-cli-answers-'))

type Route = (request: IncomingMessage, response: ServerResponse) => void
let routes: Record<string, Route> = {}
let server: Server
let serverUrl = ''

const json =
  (status: number, body: unknown): Route =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json' })
    response.end(typeof body === 'string' ? body : JSON.stringify(body))
  }
const TOKEN_ROUTE = `/api/msc/v1/organizations/${ORG}/credentials/v3/token`
const api = (suffix: string) => `/api/msc/v1/organizations/${ORG}/data-structures/v1${suffix}`
const SCHEMA = '{"self":{"vendor":"com.acme","name":"a","format":"jsonschema","version":"1-0-0"}}'

beforeAll(async () => {
  server = createServer((request, response) => {
    const route = routes[(request.url ?? '').split('?')[0] ?? '']
    if (route === undefined) json(404, { message: 'no such route' })(request, response)
    else route(request, response)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  serverUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
  rmSync(root, { recursive: true, force: true })
})

const config = (timeoutSeconds = 60): ConsoleClientConfig => ({
  serverUrl,
  organizationId: ORG,
  apiKeyId: '11111111-2222-4333-8444-555555555555',
  apiKey: 'secret',
  timeoutSeconds,
})
const flags = () => ({
  server: serverUrl,
  org: ORG,
  keyId: '11111111-2222-4333-8444-555555555555',
  key: 'secret',
})

describe('the command line against unexpected answers', () => {
  it('tells a refused key from a token exchange that failed', async () => {
    routes = { [TOKEN_ROUTE]: json(403, { message: 'revoked' }) }
    await expect(ConsoleApiClient.connect(config())).rejects.toThrow(
      'the key was refused (403: revoked)',
    )
    routes = { [TOKEN_ROUTE]: json(500, '<html>oops</html>') }
    await expect(ConsoleApiClient.connect(config())).rejects.toThrow(
      `the token exchange at ${serverUrl} failed (500)`,
    )
    routes = { [TOKEN_ROUTE]: json(200, {}) }
    await expect(ConsoleApiClient.connect(config())).rejects.toThrow(
      'failed (200: no access token in the answer)',
    )
  })

  it('names an answer that is no JSON, or not the list asked for', async () => {
    routes = { [TOKEN_ROUTE]: json(200, { accessToken: 't' }), [api('')]: json(200, '<html>') }
    const client = await ConsoleApiClient.connect(config())
    await expect(client.getJsonList('/data-structures/v1')).rejects.toThrow(
      'GET /data-structures/v1 answered 200 with no JSON: <html>',
    )
    routes[api('')] = json(200, { data: [] })
    await expect(client.getJsonList('/data-structures/v1')).rejects.toThrow(
      'GET /data-structures/v1 answered 200 with no list of objects: {"data":[]}',
    )
  })

  it('gives up a request that is never answered, after --timeout', async () => {
    routes = {
      [TOKEN_ROUTE]: json(200, { accessToken: 't' }),
      // Accepted, never answered.
      [api('')]: () => undefined,
    }
    const client = await ConsoleApiClient.connect(config(0.3))
    await expect(client.getJson('/data-structures/v1')).rejects.toThrow(
      `no answer from ${serverUrl} within 0.3 s (--timeout)`,
    )
  })

  it('pulls what it can, names each version and structure it cannot, and exits with 1', async () => {
    routes = {
      [TOKEN_ROUTE]: json(200, { accessToken: 't' }),
      [api('')]: json(200, [
        { hash: 'h1', vendor: 'com.acme', name: 'a', format: 'jsonschema' },
        { hash: 'h2', vendor: 'com.acme', name: 'b', format: 'jsonschema' },
        { hash: 'h3', vendor: '..', name: 'c', format: 'jsonschema' },
      ]),
      [api('/h1/deployments')]: json(200, [{ version: '1-0-0' }, { version: '1-0-1' }]),
      [api('/h1/versions/1-0-0')]: json(200, SCHEMA),
      [api('/h1/versions/1-0-1')]: json(500, { message: 'boom' }),
      [api('/h2/deployments')]: json(500, { message: 'down' }),
      [api('/h3/deployments')]: json(200, [{ version: '1-0-0' }]),
    }
    const into = path.join(root, 'pulled')
    const outcome = await pullSchemasCommand(into, flags())
    expect(outcome.exitCode).toBe(1)
    expect(outcome.output.trimEnd().split('\n')).toEqual([
      `wrote ${path.join(into, 'com.acme/a/jsonschema/1-0-0')}`,
      'not written com.acme/a/jsonschema/1-0-1: the registry answered 500',
      expect.stringMatching(
        /^not written com\.acme\/b\/jsonschema: GET \/data-structures\/v1\/h2\/deployments\?env=DEV answered 500/,
      ),
      'not written ../c/jsonschema/1-0-0: not a safe path',
      '1 written, 0 unchanged, 3 not pulled (DEV)',
    ])
    expect(readFileSync(path.join(into, 'com.acme/a/jsonschema/1-0-0'), 'utf8')).toBe(`${SCHEMA}\n`)
    // Nothing half-written is left beside the files.
    expect(readdirSync(path.join(into, 'com.acme/a/jsonschema'))).toEqual(['1-0-0'])
  })
})
