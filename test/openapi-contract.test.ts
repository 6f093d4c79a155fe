import { expect, it } from 'vitest'
import {
  asJsonSchema,
  documentContract,
  documentedPath,
  type ApiDocument,
} from './support/openapi-contract.js'

// The checker that holds answers to the API document is itself held to what it must refuse: an
// answer the document does not describe must be a problem, or the contract tests could not fail.

const document: ApiDocument = {
  paths: {
    '/counts': {
      get: {
        responses: {
          '200': {
            content: { 'application/json': { schema: { $ref: '#/components/schemas/C' } } },
          },
          '302': { description: 'elsewhere' },
          '404': { content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      },
    },
    '/things/{id}': { get: { responses: { '200': { content: { '*/*': { schema: {} } } } } } },
    '/things/all': { get: { responses: { '200': { content: { 'text/html': { schema: {} } } } } } },
  },
  components: {
    schemas: {
      C: {
        type: 'object',
        properties: { n: { type: 'integer' }, name: { type: 'string', nullable: true } },
        required: ['n'],
        additionalProperties: false,
      },
    },
  },
}

it('accepts what the document describes and names what it does not', () => {
  const { check, checked } = documentContract(document)
  const json = 'application/json; charset=utf-8'
  expect(check('GET', '/counts', 200, json, { n: 1, name: null }).problem).toBeNull()
  expect(check('GET', '/counts', 200, json, { n: 1.5 }).problem).toMatch(/must be integer/)
  expect(check('GET', '/counts', 200, json, { n: 1, extra: true }).problem).toMatch(/extra/)
  expect(check('GET', '/counts', 200, json, { name: 'x' }).problem).toMatch(/required/)
  expect(check('GET', '/counts', 500, json, {}).problem).toMatch(/does not list/)
  expect(check('GET', '/counts', 404, json, {}).problem).toMatch(/lists text\/plain/)
  expect(check('GET', '/counts', 404, 'text/plain', 'gone').problem).toBeNull()
  expect(check('GET', '/counts', 302, null, '').problem).toBeNull()
  expect(check('GET', '/counts', 302, 'text/plain', 'x').problem).toMatch(/says none/)
  expect(check('POST', '/counts', 200, json, {}).problem).toMatch(/not in the document/)
  expect(check('GET', '/things/{id}', 200, 'image/png', 'bytes').problem).toBeNull()
  expect([...checked].sort()).toEqual([
    'GET /counts 200',
    'GET /counts 302',
    'GET /counts 404',
    'GET /things/{id} 200',
  ])
})

it('finds the operation of a path, a literal segment before a template', () => {
  expect(documentedPath(document, 'GET', '/things/all?x=1')).toBe('/things/all')
  expect(documentedPath(document, 'GET', '/things/42')).toBe('/things/{id}')
  expect(documentedPath(document, 'GET', '/things/')).toBeNull()
  expect(documentedPath(document, 'DELETE', '/things/42')).toBeNull()
})

it("reads OpenAPI's nullable as JSON Schema", () => {
  expect(asJsonSchema({ type: 'string', nullable: true })).toEqual({ type: ['string', 'null'] })
  expect(asJsonSchema({ enum: ['a'], nullable: true })).toEqual({
    anyOf: [{ enum: ['a', null] }, { type: 'null' }],
  })
})
