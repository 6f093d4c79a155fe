import type { ConsoleClientConfig } from '../config/index.js'

/** An answer of the Console API that is not what the command needed. */
export class ConsoleApiError extends Error {}

/** The Console API of one organization, with a token exchanged for the configured key. */
export class ConsoleApiClient {
  private constructor(
    private readonly serverUrl: string,
    readonly organizationId: string,
    private readonly token: string,
  ) {}

  private get base(): string {
    return `${this.serverUrl}/api/msc/v1/organizations/${this.organizationId}`
  }

  static async connect(config: ConsoleClientConfig): Promise<ConsoleApiClient> {
    const base = `${config.serverUrl}/api/msc/v1/organizations/${config.organizationId}`
    const version = config.apiKeyId === null ? 'v2' : 'v3'
    const headers: Record<string, string> = { 'X-API-Key': config.apiKey }
    if (config.apiKeyId !== null) headers['X-API-Key-Id'] = config.apiKeyId
    let response: Response
    try {
      response = await fetch(`${base}/credentials/${version}/token`, { headers })
    } catch (error) {
      throw new ConsoleApiError(`cannot reach ${config.serverUrl}: ${(error as Error).message}`, {
        cause: error,
      })
    }
    const body = (await response.json().catch(() => null)) as {
      accessToken?: string
      message?: string
    } | null
    if (!response.ok || typeof body?.accessToken !== 'string')
      throw new ConsoleApiError(
        `the key was refused (${response.status}${body?.message === undefined ? '' : `: ${body.message}`})`,
      )
    return new ConsoleApiClient(config.serverUrl, config.organizationId, body.accessToken)
  }

  /** A request to the organization's Console API, with a JSON body given as text (sent as is: a schema keeps its bytes). */
  call(method: string, path: string, bodyText?: string): Promise<{ status: number; text: string }> {
    return this.request(method, `${this.base}${path}`, bodyText)
  }

  /** A request to any path of the server (`/micro/...`), with the token. */
  serverCall(
    method: string,
    path: string,
    bodyText?: string,
  ): Promise<{ status: number; text: string }> {
    return this.request(method, `${this.serverUrl}${path}`, bodyText)
  }

  private async request(
    method: string,
    url: string,
    bodyText?: string,
  ): Promise<{ status: number; text: string }> {
    const response = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        ...(bodyText === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(bodyText === undefined ? {} : { body: bodyText }),
    })
    return { status: response.status, text: await response.text() }
  }

  /** A GET whose 200 answer is JSON. */
  async getJson<T>(path: string): Promise<T> {
    const answer = await this.call('GET', path)
    if (answer.status !== 200)
      throw new ConsoleApiError(
        `GET ${path} answered ${answer.status}: ${answer.text.slice(0, 300)}`,
      )
    return JSON.parse(answer.text) as T
  }
}
