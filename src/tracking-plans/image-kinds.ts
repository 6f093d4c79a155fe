/** The kinds of image a trigger may show, told by their first bytes, never by what the client says. */
export interface ImageKind {
  readonly contentType: string
  readonly name: string
}

const PNG: ImageKind = { contentType: 'image/png', name: 'PNG' }
const JPEG: ImageKind = { contentType: 'image/jpeg', name: 'JPEG' }
const GIF: ImageKind = { contentType: 'image/gif', name: 'GIF' }
const WEBP: ImageKind = { contentType: 'image/webp', name: 'WebP' }

/** What an upload may be, for error messages. SVG is not one: it may hold scripts. */
export const ACCEPTED_IMAGE_KINDS = [PNG, JPEG, GIF, WEBP].map((kind) => kind.name).join(', ')

/** The most leading bytes {@link imageKindOf} reads. */
export const IMAGE_SIGNATURE_BYTES = 12

const startsWith = (bytes: Uint8Array, signature: readonly number[], at = 0) =>
  bytes.length >= at + signature.length && signature.every((byte, i) => bytes[at + i] === byte)

const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0))

/** The image kind that bytes starting with `head` are, or null when they are none that is accepted. */
export function imageKindOf(head: Uint8Array): ImageKind | null {
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return PNG
  if (startsWith(head, [0xff, 0xd8, 0xff])) return JPEG
  if (startsWith(head, ascii('GIF87a')) || startsWith(head, ascii('GIF89a'))) return GIF
  if (startsWith(head, ascii('RIFF')) && startsWith(head, ascii('WEBP'), 8)) return WEBP
  return null
}
