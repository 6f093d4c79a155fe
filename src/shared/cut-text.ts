/**
 * `text`, cut to `limit` characters when longer, ending with how long it was: for messages that
 * quote what a user sent (a schema's part, a JSON pointer) and must stay of bounded size.
 */
export const cutText = (text: string, limit: number): string =>
  text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length} characters in all)`
