import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { Clock } from '../auth/index.js'
import { ACCEPTED_IMAGE_KINDS, IMAGE_SIGNATURE_BYTES, imageKindOf } from './image-kinds.js'
import {
  ImageHashMismatchError,
  ImageNotUploadedError,
  InvalidImageHashError,
  TooManyUploadLinksError,
  TriggerImageNotFoundError,
  UnacceptedImageError,
  UnknownImageVariantError,
  UploadLinkRefusedError,
} from './trigger-images.errors.js'
import type { TriggerImagesStore } from './trigger-images.store.js'

/** The largest image kept, as Cloudflare Images' own limit. */
export const MAX_TRIGGER_IMAGE_BYTES = 10 * 1024 * 1024
/** The bytes of one stored part: written by PGlite in ~5 ms, read in ~1 ms. */
const PART_BYTES = 256 * 1024
/** How long an upload link may be used, as Cloudflare's direct upload links. */
export const UPLOAD_LINK_SECONDS = 30 * 60
/** The most links of an organization not yet used nor expired. */
export const MAX_OPEN_UPLOAD_LINKS = 100
/** An image never confirmed is forgotten this long after its link expired. */
const UNCONFIRMED_KEPT_MS = 24 * 60 * 60 * 1000
/** The one variant kept. */
export const ORIGINAL_VARIANT = 'original'

const sha256Hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex')
const SHA256_HEX = /^[0-9a-fA-F]{64}$/

/** An image as served. */
export interface TriggerImageBytes {
  readonly contentType: string
  readonly byteLength: number
  /** The bytes part after part, read from the store as they are sent: never all at once. */
  readonly parts: AsyncIterable<Buffer>
}

/**
 * Trigger images, as snowplow-cli publishes them: a link is asked for, the image is sent to it (the
 * link is the credential: the tool sends no token there), and the image is confirmed by the
 * SHA-256 it computed of its file, which must be that of the bytes received.
 */
export function createTriggerImagesService(deps: {
  readonly store: TriggerImagesStore
  readonly clock: Clock
}) {
  const { store, clock } = deps

  /** Whether the link may take an image now: checked before its body is read, and again after. */
  async function checkUploadLink(organizationId: string, id: string, token: string): Promise<void> {
    const image = await store.find(organizationId, id)
    if (image === null) throw new UploadLinkRefusedError('is not known')
    if (image.uploadTokenSha256 === null) throw new UploadLinkRefusedError('was used already')
    if (image.uploadTokenSha256 !== sha256Hex(token))
      throw new UploadLinkRefusedError('is not known')
    if (image.uploadExpiresAt.getTime() <= clock.now().getTime())
      throw new UploadLinkRefusedError(`expired at ${image.uploadExpiresAt.toISOString()}`)
  }

  return {
    checkUploadLink,

    /** A new upload link: the image's id and the one-time token that the link carries. */
    async createUploadLink(organizationId: string): Promise<{ id: string; token: string }> {
      const now = clock.now()
      await store.forgetUnconfirmed(organizationId, new Date(now.getTime() - UNCONFIRMED_KEPT_MS))
      const id = randomUUID()
      const token = randomBytes(32).toString('base64url')
      const added = await store.addLinkIfRoom(
        {
          id,
          organizationId,
          tokenSha256: sha256Hex(token),
          expiresAt: new Date(now.getTime() + UPLOAD_LINK_SECONDS * 1000),
          createdAt: now,
        },
        MAX_OPEN_UPLOAD_LINKS,
      )
      if (!added) throw new TooManyUploadLinksError(MAX_OPEN_UPLOAD_LINKS)
      return { id, token }
    },

    /**
     * Reads an image from `chunks` (at most MAX_TRIGGER_IMAGE_BYTES; a longer one is refused once
     * the limit is passed) and keeps it with the link's use.
     */
    async upload(
      organizationId: string,
      id: string,
      token: string,
      chunks: AsyncIterable<Buffer>,
    ): Promise<{ byteLength: number; contentType: string }> {
      await checkUploadLink(organizationId, id, token)
      const hash = createHash('sha256')
      const parts: string[] = []
      let pending: Buffer[] = []
      let pendingBytes = 0
      let byteLength = 0
      let head = Buffer.alloc(0)
      const flush = (all: boolean) => {
        while (pendingBytes >= PART_BYTES || (all && pendingBytes > 0)) {
          const joined = Buffer.concat(pending)
          const cut = Math.min(PART_BYTES, joined.length)
          parts.push(joined.subarray(0, cut).toString('base64'))
          pending = cut < joined.length ? [joined.subarray(cut)] : []
          pendingBytes = joined.length - cut
        }
      }
      for await (const chunk of chunks) {
        byteLength += chunk.length
        if (byteLength > MAX_TRIGGER_IMAGE_BYTES)
          throw new UnacceptedImageError(
            `an image may have at most ${MAX_TRIGGER_IMAGE_BYTES} bytes (10 MiB)`,
          )
        if (head.length < IMAGE_SIGNATURE_BYTES)
          head = Buffer.concat([head, chunk.subarray(0, IMAGE_SIGNATURE_BYTES)])
        hash.update(chunk)
        pending.push(chunk)
        pendingBytes += chunk.length
        flush(false)
      }
      flush(true)
      if (byteLength === 0) throw new UnacceptedImageError('the file is empty')
      const kind = imageKindOf(head)
      if (kind === null)
        throw new UnacceptedImageError(
          `not an image of a kind Floe keeps (${ACCEPTED_IMAGE_KINDS}), by its first bytes`,
        )
      const outcome = await store.saveUpload(organizationId, id, sha256Hex(token), clock.now(), {
        contentType: kind.contentType,
        byteLength,
        sha256: hash.digest('hex'),
        parts,
      })
      if (outcome === 'gone') throw new UploadLinkRefusedError('is not known')
      if (outcome === 'used') throw new UploadLinkRefusedError('was used already')
      if (outcome === 'expired') throw new UploadLinkRefusedError('expired during the upload')
      return { byteLength, contentType: kind.contentType }
    },

    /** Confirms an uploaded image by the SHA-256 (hex) of its bytes. */
    async confirm(organizationId: string, id: string, hash: string): Promise<void> {
      if (!SHA256_HEX.test(hash)) throw new InvalidImageHashError()
      const image = await store.find(organizationId, id)
      if (image === null) throw new TriggerImageNotFoundError(id)
      if (image.sha256 === null) throw new ImageNotUploadedError(id)
      if (image.sha256 !== hash.toLowerCase())
        throw new ImageHashMismatchError(hash.toLowerCase(), image.sha256)
      await store.confirm(organizationId, id, clock.now())
    },

    /** The confirmed images with the SHA-256 of each. */
    async list(organizationId: string): Promise<{ id: string; hash: string }[]> {
      return (await store.listConfirmed(organizationId)).map(({ id, sha256 }) => ({
        id,
        hash: sha256,
      }))
    },

    /** An uploaded image's bytes (`original` is the one variant). */
    async read(organizationId: string, id: string, variant: string): Promise<TriggerImageBytes> {
      const image = await store.find(organizationId, id)
      if (image === null || image.contentType === null) throw new TriggerImageNotFoundError(id)
      if (variant !== ORIGINAL_VARIANT) throw new UnknownImageVariantError(variant)
      async function* parts(): AsyncGenerator<Buffer> {
        for await (const part of store.parts(id)) yield Buffer.from(part, 'base64')
      }
      return { contentType: image.contentType, byteLength: image.byteLength ?? 0, parts: parts() }
    },
  }
}

export type TriggerImagesService = ReturnType<typeof createTriggerImagesService>
