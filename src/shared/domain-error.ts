/**
 * What kind of failure a domain error is, in the domain's words. The HTTP edge maps each kind to
 * one status (`http/error-status.ts`), so no context knows HTTP and HTTP knows no context.
 */
export type DomainErrorKind =
  /** The input is malformed or names something impossible. */
  | 'invalid'
  /** No credentials, or credentials that prove nothing. */
  | 'unauthenticated'
  /** Credentials that do not allow this. */
  | 'forbidden'
  | 'not-found'
  /** The request contradicts the current state (a lifecycle rule, a concurrent write). */
  | 'conflict'
  /** Well-formed input that the domain refuses (an incompatible schema, an unknown reference). */
  | 'rejected'
  /** Too many requests, or no capacity left right now: try again later. */
  | 'overloaded'
  /** A part of the server is down or starting again: the same request may succeed shortly. */
  | 'unavailable'

/**
 * Base of every error a bounded context raises on purpose. It carries a stable code, its kind and
 * a message for people, never an HTTP status.
 */
export abstract class DomainError<Code extends string = string> extends Error {
  abstract readonly code: Code
  abstract readonly kind: DomainErrorKind

  constructor(
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
    options?: ErrorOptions,
  ) {
    super(message, options)
    this.name = new.target.name
  }
}
