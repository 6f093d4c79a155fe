/**
 * The problem with a PostgreSQL URL, or null. The URL itself is never repeated: it may hold a
 * password.
 */
export function postgresUrlProblem(url: string, setting: string): string | null {
  if (!/^postgres(ql)?:\/\//.test(url))
    return `${setting} must start with postgres:// or postgresql://`
  try {
    new URL(url)
    return null
  } catch {
    return `${setting} is not a URL (postgres://user:password@host:port/database; a port is a number, and a password's special characters are written %XX)`
  }
}
