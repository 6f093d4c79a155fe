/** Limits on one compatibility check. Exceeding any of them makes the answer `undecidable` (budget). */
export interface BudgetLimits {
  /** Subschema pairs visited by the prover, plus candidate values tried by the witness search. */
  readonly maxVisits: number
  /** Automaton states built for regex inclusion, per automaton. */
  readonly maxAutomatonStates: number
  /** Time for the whole check, in milliseconds. */
  readonly maxMillis: number
}

export const DEFAULT_BUDGET: BudgetLimits = {
  maxVisits: 20_000,
  maxAutomatonStates: 10_000,
  maxMillis: 150,
}

export class BudgetExceeded extends Error {
  constructor(readonly what: string) {
    super(`budget exceeded: ${what}`)
  }
}

export class Budget {
  private visits = 0
  private readonly deadline: number

  constructor(
    readonly limits: BudgetLimits,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.deadline = now() + limits.maxMillis
  }

  /** Counts one unit of work; throws when the visits or the time are used up. */
  visit(): void {
    this.visits++
    if (this.visits > this.limits.maxVisits)
      throw new BudgetExceeded(`more than ${this.limits.maxVisits} visits`)
    if ((this.visits & 15) === 0 && this.now() > this.deadline)
      throw new BudgetExceeded(`more than ${this.limits.maxMillis} ms`)
  }

  timeLeft(): boolean {
    return this.now() <= this.deadline
  }
}
