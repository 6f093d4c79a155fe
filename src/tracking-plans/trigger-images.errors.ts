import { DomainError } from '../shared/index.js'

export class TriggerImageNotFoundError extends DomainError<'IMAGE_NOT_FOUND'> {
  readonly code = 'IMAGE_NOT_FOUND'
  readonly kind = 'not-found'
  constructor(id: string) {
    super(`No trigger image ${id.slice(0, 100)} in this organization`)
  }
}

/** Only the original of an image is kept (Cloudflare's other variants are resized copies). */
export class UnknownImageVariantError extends DomainError<'VARIANT_NOT_FOUND'> {
  readonly code = 'VARIANT_NOT_FOUND'
  readonly kind = 'not-found'
  constructor(variant: string) {
    super(
      `variant: Floe keeps only the "original" variant of a trigger image, not "${variant.slice(0, 100)}"`,
      { field: 'variant' },
    )
  }
}

export class ImageNotUploadedError extends DomainError<'IMAGE_NOT_UPLOADED'> {
  readonly code = 'IMAGE_NOT_UPLOADED'
  readonly kind = 'conflict'
  constructor(id: string) {
    super(`Trigger image ${id}: nothing was uploaded to its link yet`)
  }
}

export class ImageHashMismatchError extends DomainError<'HASH_MISMATCH'> {
  readonly code = 'HASH_MISMATCH'
  readonly kind = 'rejected'
  constructor(given: string, actual: string) {
    super(
      `hash: the uploaded image's SHA-256 is ${actual}, not ${given}; the image was not confirmed`,
      { field: 'hash' },
    )
  }
}

export class InvalidImageHashError extends DomainError<'INVALID_HASH'> {
  readonly code = 'INVALID_HASH'
  readonly kind = 'invalid'
  constructor() {
    super('hash: must be the SHA-256 of the image, 64 hexadecimal digits', { field: 'hash' })
  }
}

export class TooManyUploadLinksError extends DomainError<'TOO_MANY_UPLOAD_LINKS'> {
  readonly code = 'TOO_MANY_UPLOAD_LINKS'
  readonly kind = 'overloaded'
  constructor(limit: number) {
    super(
      `This organization has ${limit} unused image upload links; use them, or wait for them to expire`,
    )
  }
}

/** A link whose token is wrong, used or expired: the image must be asked for again. */
export class UploadLinkRefusedError extends DomainError<'UPLOAD_LINK_REFUSED'> {
  readonly code = 'UPLOAD_LINK_REFUSED'
  readonly kind = 'forbidden'
  constructor(why: string) {
    super(`This upload link ${why}; ask for another (POST images/v1)`)
  }
}

export class UnacceptedImageError extends DomainError<'UNACCEPTED_IMAGE'> {
  readonly code = 'UNACCEPTED_IMAGE'
  readonly kind = 'rejected'
  constructor(why: string) {
    super(`file: ${why}`, { field: 'file' })
  }
}
