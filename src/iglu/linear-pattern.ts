import { RE2JS } from 're2js'
import { BoundedMemo } from '../bounded-memo.js'

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

/** Answers kept per pattern, for inputs this short: values such as currency codes or enums repeat. */
const REMEMBERED_ANSWERS = 64
const REMEMBERED_MAX_LENGTH = 64

/**
 * RE2 in JavaScript costs microseconds per call even on a three-letter input, so a pattern keeps
 * its last answers for short inputs (a pure function of the input; at most 64 × 64 characters).
 */
class RememberingPattern implements LinearPattern {
  private readonly answers: BoundedMemo<string, boolean>

  constructor(private readonly engine: RE2JS) {
    this.answers = new BoundedMemo(REMEMBERED_ANSWERS, (input) => engine.test(input))
  }

  /** Ajv keys the patterns of generated code by this text: it must be the pattern's own. */
  toString(): string {
    return this.engine.toString()
  }

  test(input: string): boolean {
    return input.length > REMEMBERED_MAX_LENGTH ? this.engine.test(input) : this.answers.get(input)
  }
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** Compiles an ECMA-262 pattern (as JSON Schema writes them) for the linear-time engine. */
export function compileLinearPattern(pattern: string): LinearPattern {
  try {
    // Only compiled, never run: checks the pattern is the ECMA-262 regex JSON Schema asks for.
    new RegExp(pattern, 'u')
  } catch (error) {
    throw new UnsupportedPatternError(`the pattern ${JSON.stringify(pattern)} is not a valid ECMA-262 regular expression: ${describe(error)}`)
  }
  try {
    return new RememberingPattern(RE2JS.compile(RE2JS.translateRegExp(pattern)))
  } catch (error) {
    throw new UnsupportedPatternError(
      `the pattern ${JSON.stringify(pattern)} cannot run on Floe's linear-time regex engine (RE2: no lookaround, no backreferences): ${describe(error)}`,
    )
  }
}

/** The engine in the shape Ajv's `code.regExp` option takes (`code` names it in generated code). */
export const linearPatternEngine = Object.assign((pattern: string) => compileLinearPattern(pattern), { code: 'compileLinearPattern' })
