import { ApiError, type ApiClient } from './client.js'

export type SpecificationStatus = 'draft' | 'published' | 'deprecated'

export interface EntityReference {
  source: string
  minCardinality?: number
  maxCardinality?: number
  schema?: object
  comment?: string
}

/** A tracking scenario (an event specification) as the tracking-scenarios API reads and writes it. */
/** What sets an event off, as snowplow-cli and the Console write it (an image in `variantUrls`). */
export interface Trigger {
  id?: string
  description?: string
  appIds?: string[]
  url?: string
  variantUrls?: Record<string, string>
}

export interface Scenario {
  id?: string
  version?: number
  status?: SpecificationStatus
  name: string
  description?: string
  owner?: string
  event?: { source?: string; schema?: object }
  entities?: { tracked?: EntityReference[]; enriched?: EntityReference[] }
  dataProductId?: string
  sourceApplications?: string[]
  [field: string]: unknown
}

export interface HistoryRecord {
  readonly author: string
  readonly message: string
  readonly date: string
  readonly scenarioId: string
  readonly version: number
  readonly status: SpecificationStatus
}

/** An Error refuses a write (nothing stored); a Warning comes with a stored one. */
export interface Problem {
  readonly type: 'Error' | 'Warning'
  readonly code: string
  readonly title: string
  readonly source?: string
  readonly detail?: unknown
}

export interface ScenarioAnswer {
  readonly data: Scenario[]
  readonly includes: HistoryRecord[]
  readonly errors: Problem[]
}

export interface DataProduct {
  id: string
  name: string
  description?: string | null
  domain?: string | null
  owner?: string | null
  status?: string | null
  sourceApplications?: string[]
  eventSpecs?: { id: string; url: string }[]
  [field: string]: unknown
}

export interface SourceApplication {
  readonly id: string
  readonly name: string
  readonly appIds?: readonly string[]
}

export interface SpecCompatibility {
  readonly status: 'compatible' | 'incompatible' | 'undecidable'
  readonly sources: readonly {
    source: string
    status: string
    properties: Record<string, string>
  }[]
  readonly message: string
}

/** The tracking plan's Console APIs, for the signed-in organization. */
export class TrackingPlanApi {
  constructor(private readonly api: ApiClient) {}

  private scenarios(rest = '') {
    return this.api.organizationPath(`/tracking-scenarios/v1${rest}`)
  }

  listScenarios(): Promise<ScenarioAnswer> {
    return this.api.get(this.scenarios('?withLatestHistory=true'))
  }

  /** The scenario now (with its whole history), or a kept version of it. */
  getScenario(id: string, version?: number): Promise<ScenarioAnswer> {
    const query = version === undefined ? '?withHistory=true' : `?version=${version}`
    return this.api.get(this.scenarios(`/${encodeURIComponent(id)}${query}`))
  }

  /** Creates (no id) or edits a scenario; a refused write answers its errors, as an ApiError. */
  async writeScenario(scenario: Scenario, message: string): Promise<ScenarioAnswer> {
    const { id, ...body } = scenario
    const answer =
      id === undefined
        ? await this.api.call<ScenarioAnswer>('POST', this.scenarios(), { scenario: body, message })
        : await this.api.call<ScenarioAnswer>('PUT', this.scenarios(`/${encodeURIComponent(id)}`), {
            scenario: body,
            message,
          })
    return answer.body
  }

  /** The event and entity schemas of a draft against their data structures, without storing it. */
  async checkCompatibility(scenario: Scenario): Promise<SpecCompatibility> {
    const answer = await this.api.call<SpecCompatibility>(
      'POST',
      this.api.organizationPath('/event-specs/v1/compatibility'),
      {
        spec: {
          ...(scenario.event?.source === undefined ? {} : { event: scenario.event }),
          entities: { tracked: scenario.entities?.tracked ?? [] },
        },
      },
    )
    return answer.body
  }

  async listDataProducts(): Promise<DataProduct[]> {
    const answer = await this.api.get<{ data: DataProduct[] }>(
      this.api.organizationPath('/data-products/v2'),
    )
    return answer.data
  }

  async getDataProduct(id: string): Promise<DataProduct> {
    const answer = await this.api.get<{ data: DataProduct[] }>(
      this.api.organizationPath(`/data-products/v2/${encodeURIComponent(id)}`),
    )
    const product = answer.data[0]
    if (product === undefined) throw new Error(`No data product ${id}`)
    return product
  }

  async writeDataProduct(product: Partial<DataProduct> & { name: string }): Promise<DataProduct> {
    const { id, eventSpecs: _eventSpecs, ...body } = product
    const answer =
      id === undefined
        ? await this.api.call<{ data: DataProduct[] }>(
            'POST',
            this.api.organizationPath('/data-products/v2'),
            body,
          )
        : await this.api.call<{ data: DataProduct[] }>(
            'PUT',
            this.api.organizationPath(`/data-products/v2/${encodeURIComponent(id)}`),
            { ...body, id },
          )
    const written = answer.body.data[0]
    if (written === undefined) throw new Error('The server answered without the data product')
    return written
  }

  /**
   * The path of a trigger image that this organization's images API serves, from a trigger's
   * `variantUrls.original`; null for any other address (a token is never sent elsewhere).
   */
  imagePath(variantUrl: string): string | null {
    let url: URL
    try {
      url = new URL(variantUrl, location.href)
    } catch {
      return null
    }
    const prefix = `${this.api.organizationPath('/images/v1/')}`
    return url.origin === location.origin && url.pathname.startsWith(prefix) ? url.pathname : null
  }

  /** A trigger image's bytes, from a path that {@link imagePath} gave. */
  triggerImage(path: string): Promise<Blob> {
    return this.api.blob(path)
  }

  async listSourceApplications(): Promise<SourceApplication[]> {
    const answer = await this.api.get<{ data: SourceApplication[] }>(
      this.api.organizationPath('/source-apps/v1'),
    )
    return answer.data
  }
}

/** The Errors of a refused write (an ApiError carrying the envelope), or null for any other failure. */
export function problemsOf(failure: unknown): Problem[] | null {
  if (!(failure instanceof ApiError)) return null
  const body = failure.body as { errors?: Problem[] } | null
  return Array.isArray(body?.errors) ? body.errors : null
}
