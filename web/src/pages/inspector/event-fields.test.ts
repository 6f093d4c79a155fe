import { describe, expect, it } from 'vitest'
import { cellText, columnValue, groupedFields } from './event-fields.js'

describe('event fields for the inspector', () => {
  const event = {
    app_id: 'shop',
    event: 'page_view',
    collector_tstamp: '2026-11-26T12:00:00.000Z',
    page_url: 'https://shop.test/',
    geo_country: null,
    custom_field: 'x',
    contexts_com_acme_product_1: [{ sku: 'A', tags: ['x'] }, { sku: 'B' }],
    unstruct_event_com_acme_cart_1: { quantity: 2, item: { id: 7 } },
  }

  it('groups the scalar fields, leaving out empty ones and entities', () => {
    expect(groupedFields(event)).toEqual([
      { name: 'Event', fields: [['event', 'page_view']] },
      { name: 'Application', fields: [['app_id', 'shop']] },
      { name: 'Time', fields: [['collector_tstamp', '2026-11-26T12:00:00.000Z']] },
      { name: 'Page', fields: [['page_url', 'https://shop.test/']] },
      { name: 'Other', fields: [['custom_field', 'x']] },
    ])
  })

  it('reads a property inside an entity list or the event, and writes cells as text', () => {
    expect(columnValue(event, 'contexts_com_acme_product_1.sku')).toEqual(['A', 'B'])
    expect(columnValue(event, 'unstruct_event_com_acme_cart_1.item.id')).toBe(7)
    expect(columnValue(event, 'unstruct_event_com_acme_cart_1.missing')).toBe(undefined)
    expect(columnValue(event, 'app_id')).toBe('shop')
    expect(cellText(['A', 'B'])).toBe('["A","B"]')
    expect(cellText(null)).toBe('')
    expect(cellText(3)).toBe('3')
  })
})
