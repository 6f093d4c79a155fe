/** An event specification trigger's image: a link to upload it, then its bytes, then confirmed. */
export interface TriggerImagesTable {
  id: string
  organization_id: string
  /** SHA-256 (hex) of the upload link's one-time token; null once the image was uploaded. */
  upload_token_sha256: string | null
  upload_expires_at: Date
  content_type: string | null
  byte_length: number | null
  /** SHA-256 (hex) of the uploaded bytes. */
  sha256: string | null
  confirmed_at: Date | null
  created_at: Date
}

/** An image's bytes, in parts of at most 256 KiB, as base64 text. */
export interface TriggerImagePartsTable {
  image_id: string
  part: number
  data_base64: string
}
