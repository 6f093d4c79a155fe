import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import Fastify from 'fastify'
import { afterAll, describe, expect, it } from 'vitest'
import { consoleRoutes } from './console.routes.js'

describe('the console routes', () => {
  const build = mkdtempSync(path.join(tmpdir(), 'floe-console-'))
  mkdirSync(path.join(build, 'console-assets'))
  writeFileSync(path.join(build, 'index.html'), '<!doctype html><title>Floe</title>')
  writeFileSync(path.join(build, 'console-assets', 'index-abc.js'), 'console.log(1)')
  writeFileSync(path.join(build, 'console-assets', 'notes.txt'), 'not served')
  afterAll(() => rmSync(build, { recursive: true, force: true }))

  const appOn = async (directory: string) => {
    const app = Fastify()
    await app.register(consoleRoutes, { directory })
    return app
  }

  it('serves the page with its policy, and the hashed assets with a long cache life', async () => {
    const app = await appOn(build)
    const page = await app.inject('/')
    expect(page.statusCode).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(page.headers['content-security-policy']).toContain("default-src 'none'")
    expect(page.headers['cache-control']).toBe('no-cache')
    expect(page.body).toContain('<title>Floe</title>')
    const script = await app.inject('/console-assets/index-abc.js')
    expect([script.statusCode, script.headers['content-type'], script.body]).toEqual([
      200,
      'text/javascript; charset=utf-8',
      'console.log(1)',
    ])
    expect(script.headers['cache-control']).toContain('immutable')
    for (const missing of ['notes.txt', 'other.js', '..%2Findex.html'])
      expect((await app.inject(`/console-assets/${missing}`)).statusCode).toBe(404)
    await app.close()
  })

  it('says how to build the console when there is no build, and starts anyway', async () => {
    const app = await appOn(path.join(build, 'missing'))
    const page = await app.inject('/')
    expect([page.statusCode, page.body]).toEqual([
      503,
      'The web console is not built: run `npm run build`.\n',
    ])
    await app.close()
  })
})
