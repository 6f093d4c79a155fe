import type { ConsoleClientConfig } from '../config/index.js'

/** An answer of the Console API that is not what the command needed. */
export class ConsoleApiError extends Error {}

/** An access token for the configured key, from the server's token exchange. */
async function exchangeToken(config: ConsoleClientConfig): Promise<string> {
  const base = `${config.serverUrl}/api/msc/v1/organizations/${config.organizationId}`
  const version = config.apiKeyId === null ? 'v2' : 'v3'
  const headers: Record<string, string> = { 'X-API-Key': config.apiKey }
  if (config.apiKeyId !== null) headers['X-API-Key-Id'] = config.apiKeyId
  const response = await reach(config, () =>
    fetch(`${base}/credentials/${version}/token`, { headers, signal: timeoutSignal(config) }),
  )
  const body = (await response.json().catch(() => null)) as {
    accessToken?: string
    message?: string
  } | null
  const said = typeof body?.message === 'string' ? `: ${body.message}` : ''
  if (response.status === 401 || response.status === 403)
    throw new ConsoleApiError(`the key was refused (${response.status}${said})`)
  if (!response.ok || typeof body?.accessToken !== 'string')
    throw new ConsoleApiError(
      `the token exchange at ${config.serverUrl} failed (${response.status}${said || (response.ok ? ': no access token in the answer' : '')})`,
    )
  return body.accessToken
}

/**
 * A request (its answer read whole) is given up after the configured time: a server that accepts
 * the connection and never answers stops a CI job then, not after fetch's own five minutes.
 */
const timeoutSignal = (config: ConsoleClientConfig) =>
  AbortSignal.timeout(config.timeoutSeconds * 1000)

/** The ConsoleApiError of a request that failed on the way: no connection, or no answer in time. */
function unreached(config: ConsoleClientConfig, error: unknown): ConsoleApiError {
  const timedOut = error instanceof Error && error.name === 'TimeoutError'
  return new ConsoleApiError(
    timedOut
      ? `no answer from ${config.serverUrl} within ${config.timeoutSeconds} s (--timeout)`
      : `cannot reach ${config.serverUrl}: ${(error as Error).message}`,
    { cause: error },
  )
}

/** A request's answer, or a ConsoleApiError naming the server when it cannot be reached. */
async function reach(
  config: ConsoleClientConfig,
  send: () => Promise<Response>,
): Promise<Response> {
  try {
    return await send()
  } catch (error) {
    throw unreached(config, error)
  }
}

/**
 * The Console API of one organization, with a token exchanged for the configured key. A token
 * that expires while the process runs (an MCP server lives for hours) is exchanged again at the
 * first request it fails, and that request is sent once more.
 */
export class ConsoleApiClient {
  private constructor(
    private readonly config: ConsoleClientConfig,
    private token: string,
  ) {}

  get organizationId(): string {
    return this.config.organizationId
  }

  private get base(): string {
    return `${this.config.serverUrl}/api/msc/v1/organizations/${this.config.organizationId}`
  }

  static async connect(config: ConsoleClientConfig): Promise<ConsoleApiClient> {
    return new ConsoleApiClient(config, await exchangeToken(config))
  }

  /** A request to the organization's Console API, with a JSON body given as text (sent as is: a schema keeps its bytes). */
  call(method: string, path: string, bodyText?: string): Promise<{ status: number; text: string }> {
    return this.request(method, `${this.base}${path}`, bodyText)
  }

  /** A request to any path of the server (`/micro/...`, `/mcp`), with the token and any headers given. */
  serverCall(
    method: string,
    path: string,
    bodyText?: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; text: string }> {
    return this.request(method, `${this.config.serverUrl}${path}`, bodyText, headers)
  }

  private async request(
    method: string,
    url: string,
    bodyText?: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; text: string }> {
    let response = await this.send(method, url, bodyText, headers)
    if (response.status === 401) {
      // The refused answer is let go before asking again, so its connection is free to reuse.
      await response.body?.cancel()
      this.token = await exchangeToken(this.config)
      response = await this.send(method, url, bodyText, headers)
    }
    try {
      return { status: response.status, text: await response.text() }
    } catch (error) {
      throw unreached(this.config, error)
    }
  }

  private send(
    method: string,
    url: string,
    bodyText: string | undefined,
    headers: Record<string, string>,
  ): Promise<Response> {
    return reach(this.config, () =>
      fetch(url, {
        method,
        headers: {
          ...headers,
          authorization: `Bearer ${this.token}`,
          ...(bodyText === undefined ? {} : { 'content-type': 'application/json' }),
        },
        signal: timeoutSignal(this.config),
        ...(bodyText === undefined ? {} : { body: bodyText }),
      }),
    )
  }

  /** A GET whose 200 answer is JSON. */
  async getJson<T>(path: string): Promise<T> {
    const answer = await this.call('GET', path)
    if (answer.status !== 200)
      throw new ConsoleApiError(
        `GET ${path} answered ${answer.status}: ${answer.text.slice(0, 300)}`,
      )
    try {
      return JSON.parse(answer.text) as T
    } catch {
      throw new ConsoleApiError(
        `GET ${path} answered 200 with no JSON: ${answer.text.slice(0, 300)}`,
      )
    }
  }

  /** A GET whose 200 answer is a JSON list of objects (their fields are not checked). */
  async getJsonList<T extends object>(path: string): Promise<T[]> {
    const list = await this.getJson<unknown>(path)
    if (!Array.isArray(list) || !list.every((item) => item !== null && typeof item === 'object'))
      throw new ConsoleApiError(
        `GET ${path} answered 200 with no list of objects: ${JSON.stringify(list).slice(0, 300)}`,
      )
    return list as T[]
  }
}
