import { describe, expect, it } from 'vitest'
import { deployToDev } from './support/registry-builders.js'
import {
  SEARCH_1,
  basketSchema,
  contactSchema,
  eventSchema,
  title,
  useScenarioLifecycleApp,
} from './support/scenario-lifecycle-app.js'
import { backends } from './support/test-databases.js'

describe.each(backends)(
  'tracking scenario compatibility on $name: the Error/Warning matrix',
  (backend) => {
    const app = useScenarioLifecycleApp(backend)
    const { create, edit, scenarios } = app

    it('compatible with current and latest: no item', async () => {
      const response = await create({
        name: 'C ok',
        event: { source: SEARCH_1, schema: eventSchema({ type: 'string', maxLength: 5 }) },
      })
      expect(response).toMatchObject({ status: 201, body: { errors: [] } })
      expect(
        (await app.admin.call('GET', `${scenarios}/${response.body.data[0].id}`)).body.errors,
      ).toEqual([])
    })

    it('incompatible with the current version on create or edit: Error 422, nothing stored', async () => {
      const before = (await app.admin.call('GET', scenarios)).body.data.length
      const response = await create({
        name: 'C bad',
        event: { source: SEARCH_1, schema: eventSchema({ type: ['string', 'null'] }) },
      })
      expect(response.status).toBe(422)
      const error = response.body.errors.find((e: { type: string }) => e.type === 'Error')
      expect(error).toMatchObject({
        code: 'SchemaIncompatible',
        source: 'event.schema',
        title: expect.stringMatching(
          /^Tracking scenario with id: [0-9a-f-]{36}, event schema is INCOMPATIBLE with schema with name: search, vendor: com\.acme, version: 1-0-0$/,
        ),
      })
      expect(error.detail).toMatchObject({
        against: 'current',
        version: '1-0-0',
        witness: expect.anything(),
        instancePath: expect.any(String),
        reasons: expect.any(Array),
      })
      expect((await app.admin.call('GET', scenarios)).body.data.length).toBe(before)

      const stored = (
        await create({
          name: 'C edit',
          event: { source: SEARCH_1, schema: eventSchema({ type: 'string', maxLength: 5 }) },
        })
      ).body.data[0]
      const badEdit = await edit(stored.id, {
        name: 'C edit',
        event: { source: SEARCH_1, schema: eventSchema({ type: 'integer' }) },
      })
      expect(badEdit.status).toBe(422)
      expect(badEdit.body.errors).toContainEqual(
        expect.objectContaining({
          type: 'Error',
          code: 'SchemaIncompatible',
          title: title(stored.id, 'INCOMPATIBLE', '1-0-0'),
        }),
      )
      expect(
        (await app.admin.call('GET', `${scenarios}/${stored.id}?withHistory=true`)).body.includes,
      ).toHaveLength(1)
    })

    it('incompatible only with the latest version on a write: Warning, stored', async () => {
      const response = await create({
        name: 'C latest',
        event: { source: SEARCH_1, schema: eventSchema({ type: 'string', maxLength: 50 }) },
      })
      expect(response.status).toBe(201)
      const id = response.body.data[0].id
      expect(response.body.errors).toEqual([
        {
          type: 'Warning',
          code: 'SchemaIncompatible',
          source: 'event.schema',
          title: title(id, 'INCOMPATIBLE', '2-0-0'),
          detail: expect.objectContaining({ against: 'latest', version: '2-0-0' }),
        },
      ])
      const read = await app.admin.call('GET', `${scenarios}/${id}`)
      expect(read.status).toBe(200)
      expect(read.body.errors).toEqual([
        expect.objectContaining({
          type: 'Warning',
          code: 'SchemaIncompatible',
          title: title(id, 'INCOMPATIBLE', '2-0-0'),
        }),
      ])
      const listed = await app.admin.call('GET', scenarios)
      expect(listed.body.errors).toContainEqual(
        expect.objectContaining({ type: 'Warning', title: title(id, 'INCOMPATIBLE', '2-0-0') }),
      )
    })

    it('undecidable: Warning SchemaUndecidable, stored', async () => {
      // No string is both an email and dots only, so this allows nothing and is compatible in truth;
      // the engine can neither prove that nor find a witness.
      const schema = {
        type: 'object',
        properties: { email: { type: 'string', format: 'email', pattern: '^\\.{101,}$' } },
        required: ['email'],
        additionalProperties: false,
      }
      const response = await create({
        name: 'C undecidable',
        event: { source: 'iglu:com.acme/contact/jsonschema/1-0-0', schema },
      })
      expect(response.status).toBe(201)
      expect(response.body.errors).toEqual([
        expect.objectContaining({
          type: 'Warning',
          code: 'SchemaUndecidable',
          source: 'event.schema',
          title: title(response.body.data[0].id, 'UNDECIDABLE', '1-0-0', 'contact'),
        }),
      ])
      expect(response.body.errors[0].detail.reasons.length).toBeGreaterThan(0)
    })

    it('incompatible with the current version on a read: only a Warning', async () => {
      const stored = (
        await create({
          name: 'C drift',
          event: {
            source: 'iglu:com.acme/basket/jsonschema/1-0-0',
            schema: {
              type: 'object',
              properties: { total: { type: 'number', minimum: 0, maximum: 500 } },
              required: ['total'],
              additionalProperties: false,
            },
          },
        })
      ).body
      expect(stored.errors).toEqual([])
      // The data structure is patched in DEV to something narrower than the design.
      await deployToDev(app.admin, contactSchema())
      await deployToDev(app.admin, basketSchema(100), { patch: true })
      const read = await app.admin.call('GET', `${scenarios}/${stored.data[0].id}`)
      expect(read.status).toBe(200)
      expect(read.body.errors).toEqual([
        expect.objectContaining({
          type: 'Warning',
          code: 'SchemaIncompatible',
          title: title(stored.data[0].id, 'INCOMPATIBLE', '1-0-0', 'basket'),
          detail: expect.objectContaining({ against: 'current' }),
        }),
      ])
    })
  },
)
