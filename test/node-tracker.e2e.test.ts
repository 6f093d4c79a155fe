import {
  buildPageView,
  buildSelfDescribingEvent,
  buildStructEvent,
  newTracker,
} from '@snowplow/node-tracker'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { requestDocumented } from './support/openapi-contract.js'
import { describeWithSharedData, IGLU_CENTRAL } from './support/shared-data.js'
import { startTestApp, type TestApp } from './support/test-app.js'
import { testConfig } from './support/test-config.js'

const LINK_CLICK = 'iglu:com.snowplowanalytics.snowplow/link_click/jsonschema/1-0-1'

describeWithSharedData.each(['post', 'get'] as const)(
  'the real @snowplow/node-tracker (%s) against the collector',
  (eventMethod) => {
    let server: TestApp
    beforeAll(async () => {
      server = await startTestApp(testConfig({ inspection: { igluDirs: [IGLU_CENTRAL] } }))
    })
    afterAll(async () => server?.close())

    it('records its events as good, with the contexts it sent, and a broken one as bad', async () => {
      const url = new URL(server.baseUrl)
      const tracker = newTracker(
        { namespace: 'e2e', appId: 'floe-test', encodeBase64: eventMethod === 'get' },
        {
          endpoint: url.hostname,
          port: Number(url.port),
          protocol: 'http',
          eventMethod,
          bufferSize: 1,
        },
      )
      tracker.track(
        buildPageView({
          pageUrl: 'http://shop.test/basket?step=2',
          pageTitle: 'Basket',
          referrer: 'http://shop.test/',
        }),
        [
          {
            schema: 'iglu:com.snowplowanalytics.snowplow/web_page/jsonschema/1-0-0',
            data: { id: '0b1b8d3e-6a39-4a51-9e0b-5f4e9e0e6b11' },
          },
        ],
      )
      tracker.track(
        buildStructEvent({ category: 'basket', action: 'add', label: 'sku-1', value: 2 }),
      )
      tracker.track(
        buildSelfDescribingEvent({
          event: { schema: LINK_CLICK, data: { targetUrl: 'http://shop.test/checkout' } },
        }),
      )
      tracker.track(
        buildSelfDescribingEvent({
          event: { schema: LINK_CLICK, data: { elementId: 'no target' } },
        }),
      )
      await tracker.flush()

      const all = await requestDocumented(server.baseUrl, '/local/all')
      expect(all.body).toEqual({ total: 4, good: 3, bad: 1 })
      const good = (await requestDocumented(server.baseUrl, '/local/good')).body
      const pageView = good.find((e: { eventType: string }) => e.eventType === 'page_view')
      expect(pageView.event).toMatchObject({
        app_id: 'floe-test',
        platform: 'srv',
        name_tracker: 'e2e',
        page_url: 'http://shop.test/basket?step=2',
        page_urlpath: '/basket',
        page_title: 'Basket',
        page_referrer: 'http://shop.test/',
      })
      expect(pageView.event.v_tracker).toMatch(/^node-/)
      expect(pageView.contexts).toEqual([
        'iglu:com.snowplowanalytics.snowplow/web_page/jsonschema/1-0-0',
      ])
      // GET sends the pixel (/i, tp1); POST sends payload_data to /com.snowplowanalytics.snowplow/tp2.
      expect(pageView.rawEvent.api).toEqual({
        vendor: 'com.snowplowanalytics.snowplow',
        version: eventMethod === 'post' ? 'tp2' : 'tp1',
      })
      const struct = good.find((e: { eventType: string }) => e.eventType === 'struct')
      expect(struct.event).toMatchObject({
        se_category: 'basket',
        se_action: 'add',
        se_label: 'sku-1',
        se_value: 2,
      })
      const click = (
        await requestDocumented(server.baseUrl, '/local/good', {
          method: 'POST',
          body: { schema: LINK_CLICK },
        })
      ).body
      expect(click).toHaveLength(1)
      expect(click[0].event.unstruct_event.data.data).toEqual({
        targetUrl: 'http://shop.test/checkout',
      })
      const [bad] = (await requestDocumented(server.baseUrl, '/local/bad')).body
      expect(bad.errors[0]).toBe('Error while validating the event.')
      expect(JSON.parse(bad.errors[1]).data.failure.messages[0]).toMatchObject({
        schemaKey: LINK_CLICK,
        error: { error: 'ValidationError' },
      })
    })
  },
)
