import type { TestApp } from './test-app.js'

/** A logged-in client of one organization's API, over real HTTP. */
export interface ApiClient {
  readonly organizationId: string
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>
}

export async function apiClient(server: TestApp, organizationId: string, apiKeyId: string, apiKey: string): Promise<ApiClient> {
  const base = `${server.baseUrl}/api/msc/v1/organizations/${organizationId}`
  const tokenResponse = await fetch(`${base}/credentials/v3/token`, { headers: { 'X-API-Key-Id': apiKeyId, 'X-API-Key': apiKey } })
  const { accessToken } = (await tokenResponse.json()) as { accessToken: string }
  return {
    organizationId,
    async call(method, path, body) {
      const headers: Record<string, string> = { authorization: `Bearer ${accessToken}` }
      if (body !== undefined) headers['content-type'] = 'application/json'
      const response = await fetch(`${base}${path}`, { method, headers, body: typeof body === 'string' ? body : body === undefined ? undefined : JSON.stringify(body) })
      const text = await response.text()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, body: parsed }
    },
  }
}
