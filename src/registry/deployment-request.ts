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

/** Who deploys: the caller's key, its rights and its name. */
export interface Initiator {
  readonly apiKeyId: string
  readonly isAdmin: boolean
  /** Who that is, in words (the key's description); absent or null for a key without one. */
  readonly name?: string | null | undefined
}

/** The initiator of a request by `caller` (a principal, which carries more than is kept). */
export function initiatorOf(caller: {
  readonly apiKeyId: string
  readonly isAdmin: boolean
  readonly keyName?: string | null | undefined
}): Initiator {
  return { apiKeyId: caller.apiKeyId, isAdmin: caller.isAdmin, name: caller.keyName ?? null }
}
