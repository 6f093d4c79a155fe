/** SQLSTATE and constraint name of a failed statement; both drivers report them on their error objects. */
function violation(error: unknown): { code: unknown; constraint: unknown } | null {
  if (typeof error !== 'object' || error === null) return null
  const { code, constraint } = error as { code?: unknown; constraint?: unknown }
  return { code, constraint }
}

/** The unique or primary-key constraint (SQLSTATE 23505) a statement violated, if that is why it failed. */
export function violatedUniqueConstraint(error: unknown): string | null {
  const found = violation(error)
  return found?.code === '23505' && typeof found.constraint === 'string' ? found.constraint : null
}

/** True when a statement failed on a foreign key (SQLSTATE 23503): what it pointed at was deleted meanwhile. */
export function isForeignKeyViolation(error: unknown): boolean {
  return violation(error)?.code === '23503'
}
