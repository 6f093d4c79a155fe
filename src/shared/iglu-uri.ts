/**
 * Iglu URIs, `iglu:vendor/name/format/M-R-A`, read in the two ways Floe needs: as Iglu defines
 * them, and loosely (any slash-free parts), as the pipeline reads event schemas it has already let
 * through. Schema versions are only split here: `iglu/schema-ver.ts` knows which ones are valid.
 */

/** Iglu's characters for a vendor (dots allowed) and for a name or a format. */
export const VENDOR_PATTERN = /^[a-zA-Z0-9-_.]+$/
export const NAME_PATTERN = /^[a-zA-Z0-9-_]+$/

const IGLU_URI = /^iglu:([a-zA-Z0-9-_.]+)\/([a-zA-Z0-9-_]+)\/([a-zA-Z0-9-_]+)\/(\d+-\d+-\d+)$/
const LOOSE_IGLU_URI = /^iglu:([^/]+)\/([^/]+)\/([^/]+)\/(\d+-\d+-\d+)$/

/** The four parts of an Iglu URI; `version` is `M-R-A` in digits, not yet checked as a SchemaVer. */
export interface IgluUriParts {
  readonly vendor: string
  readonly name: string
  readonly format: string
  readonly version: string
}

function parts(match: RegExpExecArray | null): IgluUriParts | null {
  if (match === null) return null
  const [, vendor = '', name = '', format = '', version = ''] = match
  return { vendor, name, format, version }
}

/** The parts of an Iglu URI whose vendor, name and format use Iglu's characters; null otherwise. */
export function igluUriParts(uri: string): IgluUriParts | null {
  return parts(IGLU_URI.exec(uri))
}

/** Whether `uri` is an Iglu URI whose vendor, name and format use Iglu's characters (no parts built). */
export function isIgluUri(uri: string): boolean {
  return IGLU_URI.test(uri)
}

/** The parts of any `iglu:a/b/c/M-R-A` whose parts hold no slash; null otherwise. */
export function looseIgluUriParts(uri: string): IgluUriParts | null {
  return parts(LOOSE_IGLU_URI.exec(uri))
}
