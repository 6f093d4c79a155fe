import type { ApiClient } from './client.js'

/** A deployment as the Console API shows it. */
export interface Deployment {
  readonly version: string
  readonly patchLevel: number
  readonly contentHash: string
  readonly env: 'DEV' | 'PROD' | 'VALIDATED'
  readonly ts: string
  readonly message: string | null
  /** Who, in words (the API key's description), else the key's id. */
  readonly initiator: string | null
  readonly initiatorId?: string
}

export interface DataStructure {
  readonly hash: string
  readonly vendor: string
  readonly name: string
  readonly format: string
  readonly description: string | null
  readonly meta: { hidden?: boolean; schemaType?: string | null; customData?: unknown }
  /** The current deployment per environment, PROD first. */
  readonly deployments: readonly Deployment[]
}

/** A validation or deployment request's result. */
export interface RequestResult {
  readonly id: string
  readonly completed: boolean
  readonly success: boolean
  readonly errors: readonly string[] | null
  readonly warnings: readonly string[] | null
  readonly info: readonly string[] | null
  readonly message: string
  readonly dataStructureHash?: string
  readonly contentHash?: string
  readonly versionChange?: {
    readonly previousVersion: string
    readonly changeType: string
    readonly suggestedVersion: string
    readonly misversioned: boolean
    readonly witness?: unknown
  }
}

export interface CompatibilityVerdict {
  readonly outcome: 'compatible' | 'incompatible' | 'undecidable'
  readonly witness?: unknown
  readonly path?: string
  readonly reasons: readonly { code: string; detail: string; pointer: string }[]
}

export const currentIn = (structure: DataStructure, env: 'DEV' | 'PROD') =>
  structure.deployments.find((d) => d.env === env) ?? null

/** The registry's Console API, for the signed-in organization. */
export class RegistryApi {
  constructor(private readonly api: ApiClient) {}

  private path(rest: string) {
    return this.api.organizationPath(`/data-structures/v1${rest}`)
  }

  list(): Promise<DataStructure[]> {
    return this.api.get(this.path(''))
  }

  get(hash: string): Promise<DataStructure> {
    return this.api.get(this.path(`/${encodeURIComponent(hash)}`))
  }

  /** Every deployment of the structure, newest first. */
  deployments(hash: string): Promise<Deployment[]> {
    return this.api.get(this.path(`/${encodeURIComponent(hash)}/deployments`))
  }

  /** A version's schema as it was sent, from PROD when it is there, else DEV. */
  versionText(hash: string, version: string, env?: 'DEV' | 'PROD'): Promise<string> {
    const query = env === undefined ? '' : `?env=${env}`
    return this.api.text(
      this.path(`/${encodeURIComponent(hash)}/versions/${encodeURIComponent(version)}${query}`),
    )
  }

  async validate(meta: object, schema: unknown): Promise<RequestResult> {
    const answer = await this.api.call<RequestResult>('POST', this.path('/validation-requests'), {
      meta,
      data: schema,
    })
    return answer.body
  }

  async deploy(
    request: {
      vendor: string
      name: string
      format: string
      version: string
      source: 'VALIDATED' | 'DEV'
      target: 'DEV' | 'PROD'
      message: string
      contentHash?: string
      /** Deploys a version whose number understates its change (refused without it in PROD). */
      allowMisversioned?: boolean
    },
    options: { patch?: boolean } = {},
  ): Promise<RequestResult> {
    const answer = await this.api.call<RequestResult>(
      'POST',
      this.path(`/deployment-requests${options.patch === true ? '?patch=true' : ''}`),
      request,
    )
    return answer.body
  }

  async patchMeta(hash: string, meta: object): Promise<void> {
    await this.api.call('PATCH', this.path(`/${encodeURIComponent(hash)}/meta`), meta)
  }

  /** Is every value valid under `candidate` also valid under `reference`? */
  async compatibility(candidate: unknown, reference: unknown): Promise<CompatibilityVerdict> {
    const answer = await this.api.call<CompatibilityVerdict>(
      'POST',
      this.api.organizationPath('/compatibility-checks'),
      { candidate, reference },
    )
    return answer.body
  }
}
