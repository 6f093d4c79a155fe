import type { Session } from './session.js'

/** An answer other than 2xx, with the message and code Floe sent (`{message, code}`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null,
    readonly body: unknown,
  ) {
    super(message)
  }
}

export interface JsonAnswer<T> {
  readonly status: number
  readonly body: T
}

export async function answerOf<T>(response: Response): Promise<JsonAnswer<T>> {
  const text = await response.text()
  let body: unknown = text
  if (text !== '' && (response.headers.get('content-type') ?? '').includes('json')) {
    try {
      body = JSON.parse(text)
    } catch {
      body = text
    }
  }
  if (!response.ok) {
    const fields = (typeof body === 'object' && body !== null ? body : {}) as {
      message?: unknown
      code?: unknown
      errors?: unknown
    }
    // The tracking plans' envelope says why in its errors' titles: `{errors: [{title}]}`.
    const titles = Array.isArray(fields.errors)
      ? fields.errors
          .map((error: unknown) => (error as { title?: unknown } | null)?.title)
          .filter((title): title is string => typeof title === 'string')
      : []
    const message =
      typeof fields.message === 'string'
        ? fields.message
        : titles.length > 0
          ? titles.join('; ')
          : typeof body === 'string' && body !== ''
            ? body
            : `${response.status} ${response.statusText}`
    throw new ApiError(
      response.status,
      message,
      typeof fields.code === 'string' ? fields.code : null,
      body,
    )
  }
  return { status: response.status, body: body as T }
}

/** Calls this server's APIs; `organizationPath` is relative to the session's organization. */
export class ApiClient {
  constructor(
    private session: Session,
    private readonly onUnauthorized: () => void,
  ) {}

  /** Goes on with a new token of the same key, when the session's has lapsed. */
  renew(session: Session): void {
    this.session = session
  }

  get organizationId(): string {
    return this.session.organizationId
  }

  get isAdmin(): boolean {
    return this.session.isAdmin
  }

  /** `/api/msc/v1/organizations/{org}` + `path`. */
  organizationPath(path: string): string {
    return `/api/msc/v1/organizations/${encodeURIComponent(this.session.organizationId)}${path}`
  }

  async call<T>(method: string, url: string, body?: unknown): Promise<JsonAnswer<T>> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.session.token}` }
    if (body !== undefined) headers['content-type'] = 'application/json'
    const response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? null : JSON.stringify(body),
    })
    if (response.status === 401) this.onUnauthorized()
    return answerOf<T>(response)
  }

  get<T>(url: string): Promise<T> {
    return this.call<T>('GET', url).then((answer) => answer.body)
  }

  /** The bytes of an answer, with their content type (a trigger image). */
  async blob(url: string): Promise<Blob> {
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${this.session.token}` },
    })
    if (response.status === 401) this.onUnauthorized()
    if (!response.ok) await answerOf(response)
    return response.blob()
  }

  /** The raw text of an answer (schemas are shown exactly as stored). */
  async text(url: string): Promise<string> {
    const response = await fetch(url, {
      headers: { authorization: `Bearer ${this.session.token}` },
    })
    if (response.status === 401) this.onUnauthorized()
    if (!response.ok) await answerOf(response)
    return response.text()
  }
}

/** Exchanges an API key for an access token: v3 (key id and secret) or v2 (secret only). */
export async function exchangeApiKey(
  organizationId: string,
  apiKeyId: string,
  secret: string,
): Promise<string> {
  const version = apiKeyId.trim() === '' ? 'v2' : 'v3'
  const headers: Record<string, string> = { 'X-API-Key': secret }
  if (version === 'v3') headers['X-API-Key-Id'] = apiKeyId.trim()
  const response = await fetch(
    `/api/msc/v1/organizations/${encodeURIComponent(organizationId.trim())}/credentials/${version}/token`,
    { method: 'POST', headers },
  )
  const answer = await answerOf<{ accessToken: string }>(response)
  return answer.body.accessToken
}
