// The parser ships no types: the one call Floe makes (lib/parser.js), typed here.
declare module '@pushcorn/hocon-parser' {
  interface ParseOptions {
    /** The HOCON text. */
    readonly text: string
    /** HOCON as specified: no transforms, no `@` include shorthand, `.3` stays a string. */
    readonly strict?: boolean
    /** Whether substitutions may read environment variables. */
    readonly env?: boolean
  }
  export default function parse(options: ParseOptions): Promise<unknown>
}
