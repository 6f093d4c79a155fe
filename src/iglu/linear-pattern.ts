import { RE2JS } from 're2js'
import { BoundedMemo } from '../shared/index.js'

/**
 * A regular expression from a user (a schema `pattern`, a configured header pattern), run on RE2's
 * linear-time engine, so that no input can make matching backtrack for ever (`^(a+)+$` against a
 * long string of `a`s ending in `!` takes microseconds, not centuries).
 */
export interface LinearPattern {
  /** Whether the pattern matches somewhere in `input` (unanchored, as `RegExp.prototype.test`). */
  test(input: string): boolean
}

/** A pattern that is not ECMA-262, or that RE2 cannot run (lookaround, backreferences). */
export class UnsupportedPatternError extends Error {}

/** A valid ECMA-262 pattern that Floe will not run: RE2 cannot, or its program is too large. */
export class UnrunnablePatternError extends UnsupportedPatternError {}

/**
 * Instructions a pattern may compile to (RE2's program size, roughly the cost of each character
 * matched). Iglu Central's largest is 65; `[\\s\\S]{1000}` repeated ten times is 10 003 and took
 * 11 s on 100 kB.
 */
export const MAX_PATTERN_PROGRAM_SIZE = 2_000

/** Matching work allowed by a meter's budget was used up: the validation stops there. */
export class PatternCostExceeded extends Error {
  constructor(readonly budget: number) {
    super(
      `matching its patterns would take more than ${budget} units of work (program size × characters), the limit for one validation`,
    )
  }
}

/**
 * Matching work of one validation, in program size × characters: each match that is not
 * remembered is charged before it runs, so that no input runs past the budget.
 */
export class PatternCostMeter {
  #spent = 0
  constructor(readonly budget: number) {}

  /** Starts a new validation. */
  reset(): void {
    this.#spent = 0
  }

  charge(units: number): void {
    if (this.#spent + units > this.budget) throw new PatternCostExceeded(this.budget)
    this.#spent += units
  }
}

/** Answers kept per pattern, for inputs this short: values such as currency codes or enums repeat. */
const REMEMBERED_ANSWERS = 64
const REMEMBERED_MAX_LENGTH = 64

/**
 * RE2 in JavaScript costs microseconds per call even on a three-letter input, so a pattern keeps
 * its last answers for short inputs (a pure function of the input; at most 64 × 64 characters).
 */
class RememberingPattern implements LinearPattern {
  private readonly answers: BoundedMemo<string, boolean>

  private readonly size: number

  constructor(
    private readonly engine: RE2JS,
    private readonly meter: PatternCostMeter | undefined,
  ) {
    this.size = engine.programSize()
    this.answers = new BoundedMemo(REMEMBERED_ANSWERS, (input) => this.run(input))
  }

  private run(input: string): boolean {
    this.meter?.charge(this.size * (input.length + 1))
    return this.engine.test(input)
  }

  /** Ajv keys the patterns of generated code by this text: it must be the pattern's own. */
  toString(): string {
    return this.engine.toString()
  }

  test(input: string): boolean {
    return input.length > REMEMBERED_MAX_LENGTH ? this.run(input) : this.answers.get(input)
  }
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * Compiles an ECMA-262 pattern (as JSON Schema writes them) for the linear-time engine; a `meter`
 * is charged for every match. Refuses patterns over {@link MAX_PATTERN_PROGRAM_SIZE}.
 */
export function compileLinearPattern(pattern: string, meter?: PatternCostMeter): LinearPattern {
  try {
    // Only compiled, never run: checks the pattern is the ECMA-262 regex JSON Schema asks for.
    new RegExp(pattern, 'u')
  } catch (error) {
    throw new UnsupportedPatternError(
      `the pattern ${JSON.stringify(pattern)} is not a valid ECMA-262 regular expression: ${describe(error)}`,
    )
  }
  let engine: RE2JS
  try {
    engine = RE2JS.compile(RE2JS.translateRegExp(pattern))
  } catch (error) {
    throw new UnrunnablePatternError(
      `the pattern ${JSON.stringify(pattern)} cannot run on Floe's linear-time regex engine (RE2: no lookaround, no backreferences): ${describe(error)}`,
    )
  }
  const size = engine.programSize()
  if (size > MAX_PATTERN_PROGRAM_SIZE) {
    throw new UnrunnablePatternError(
      `the pattern ${JSON.stringify(pattern.slice(0, 200))} compiles to ${size} instructions, more than the limit of ${MAX_PATTERN_PROGRAM_SIZE} (each character matched costs about one step per instruction): use smaller repetition counts, or maxLength`,
    )
  }
  return new RememberingPattern(engine, meter)
}

/** The engine in the shape Ajv's `code.regExp` option takes (`code` names it in generated code). */
export function linearPatternEngine(meter?: PatternCostMeter) {
  return Object.assign((pattern: string) => compileLinearPattern(pattern, meter), {
    code: 'compileLinearPattern',
  })
}
