/**
 * Whether the text has an `include` statement (outside strings and comments): includes could read
 * other files or URLs, so Floe refuses them.
 */
function hasHoconInclude(hocon: string): boolean {
  const bare = hocon
    .replace(/"""[\s\S]*?"""/g, '""')
    .replace(/"(?:[^"\\\n]|\\.)*"/g, '""')
    .replace(/(#|\/\/)[^\n]*/g, '')
  return /(^|[\s{,])include\s*(required\s*\(|url\s*\(|file\s*\(|classpath\s*\(|"")/.test(bare)
}

/**
 * A HOCON text's value, as Floe reads every HOCON file (a collector configuration, an enrichment's):
 * strict, HOCON as specified without the parser's own extensions (transforms, `@` includes);
 * environment substitutions not looked up (an optional `${?X}` is left unset); no `include`. The
 * parser is loaded only when a HOCON file is given. Throws an Error saying why it cannot be read.
 */
export async function parseHoconText(text: string): Promise<unknown> {
  if (hasHoconInclude(text))
    throw new Error('include statements are not supported: inline the settings')
  const { default: parseHocon } = await import('@pushcorn/hocon-parser')
  try {
    return await parseHocon({ text, strict: true, env: false })
  } catch (error) {
    throw new Error(`is not valid HOCON (${(error as Error).message})`, { cause: error })
  }
}
