/**
 * Base of every error a bounded context raises on purpose. It carries a stable code and a
 * message for people, never an HTTP status: `http/error-handler.ts` maps codes to statuses once.
 */
export abstract class DomainError<Code extends string = string> extends Error {
  abstract readonly code: Code

  constructor(
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
    options?: ErrorOptions,
  ) {
    super(message, options)
    this.name = new.target.name
  }
}
