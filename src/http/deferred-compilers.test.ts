import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { DeferredCompilers } from './deferred-compilers.js'

const body = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 3 } },
  required: ['name'],
  additionalProperties: false,
}
const response = { 200: { type: 'object', properties: { greeting: { type: 'string' } } } }

async function server(compilers: DeferredCompilers, extraRoute = false) {
  const app = Fastify({ schemaController: { compilersFactory: compilers.factory() } })
  app.post('/hello', { schema: { body, response } }, async (request) => ({
    greeting: `hello ${(request.body as { name: string }).name}`,
    dropped: 'not in the response schema',
  }))
  if (extraRoute)
    app.get(
      '/broken',
      { schema: { querystring: { type: 'object', minProperties: 'x' } } },
      () => 'x',
    )
  await app.ready()
  return app
}

describe('route schemas compiled at first use', () => {
  it('compiles nothing at start-up, then validates and serializes as Fastify does', async () => {
    const compilers = new DeferredCompilers()
    const app = await server(compilers)
    expect(compilers.pending).toBe(2)
    const refused = await app.inject({ method: 'POST', url: '/hello', payload: { name: 'long' } })
    expect(refused.statusCode).toBe(400)
    expect(refused.json()).toMatchObject({
      code: 'FST_ERR_VALIDATION',
      message: 'body/name must NOT have more than 3 characters',
    })
    const answered = await app.inject({ method: 'POST', url: '/hello', payload: { name: 'Ann' } })
    // The response schema drops the property it does not list: the serializer was used.
    expect(answered.json()).toEqual({ greeting: 'hello Ann' })
    expect(compilers.pending).toBe(0)
    expect(await compilers.compileAll()).toBe(2)
    await app.close()
  })

  it('compiles the rest in the background, and names a schema that does not compile', async () => {
    const compilers = new DeferredCompilers()
    const app = await server(compilers, true)
    // POST /hello's body and response; GET /broken's querystring, and its HEAD route's.
    expect(compilers.pending).toBe(4)
    await expect(compilers.compileAll()).rejects.toThrow(
      /the querystring schema of GET \/broken does not compile/,
    )
    await app.close()
  })
})
