import { describe, expect, it } from 'vitest'
import { answerOf, ApiError } from './client.js'

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), {
    status,
    statusText: 'Refused',
    headers: { 'content-type': 'application/json' },
  })

describe('an answer the server refused', () => {
  const refusal = async (response: Response) => {
    try {
      await answerOf(response)
    } catch (error) {
      if (error instanceof ApiError) return error
    }
    throw new Error('expected an ApiError')
  }

  it("says the server's message, or the titles of the tracking plans' errors", async () => {
    expect((await refusal(json(409, { message: 'taken', code: 'X' }))).message).toBe('taken')
    const envelope = {
      data: [],
      includes: [],
      errors: [
        { type: 'Error', code: 'ScenarioNotFound', title: 'Tracking scenario 0 not found' },
        { type: 'Error', code: 'Other', title: 'and another' },
      ],
    }
    expect((await refusal(json(404, envelope))).message).toBe(
      'Tracking scenario 0 not found; and another',
    )
    expect((await refusal(json(500, {}))).message).toBe('500 Refused')
  })
})
