/** A deployment as a client asks for it, and who asks: kept with an accepted request until it is done. */
export interface DeploymentRequest {
  readonly source: string
  readonly target: string
  readonly vendor: string
  readonly name: string
  readonly format: string
  readonly version: string
  readonly message?: string | null | undefined
  /** The content the client expects to deploy (the `contentHash` its validation answered); other content is refused. */
  readonly contentHash?: string | null | undefined
  /** Deploy to PROD a version whose number understates its change (refused otherwise). */
  readonly allowMisversioned?: boolean | undefined
}

export interface Initiator {
  readonly apiKeyId: string
  readonly isAdmin: boolean
}
