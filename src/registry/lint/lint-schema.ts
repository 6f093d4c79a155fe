import { bqDisallowedCharacters, bqIllegalStart } from './bigquery-column-names.js'
import { description } from './description.js'
import type { LintFinding, Linter } from './linter.js'
import { numericMinMax } from './numeric-min-max.js'
import { arrayMinMaxItems, numericMinimumMaximum, stringMinMaxLength } from './ordered-bounds.js'
import { optionalNull } from './optional-null.js'
import { requiredPropertiesExist } from './required-properties-exist.js'
import { rootObject } from './root-object.js'
import { schemaUri } from './schema-uri.js'
import { stringLength } from './string-length.js'
import { stringMaxLengthRange } from './string-max-length-range.js'
import {
  arrayProperties,
  numericProperties,
  objectProperties,
  stringProperties,
} from './type-specific-keywords.js'
import { unknownFormats } from './unknown-formats.js'
import { unknownKeywords } from './unknown-keywords.js'
import { walkSubschemas } from './walk-subschemas.js'

/** Every warehouse-loading linter, each at its level. */
export const LINTERS: readonly Linter[] = [
  rootObject,
  schemaUri,
  numericMinimumMaximum,
  stringMinMaxLength,
  stringMaxLengthRange,
  arrayMinMaxItems,
  numericProperties,
  stringProperties,
  arrayProperties,
  objectProperties,
  requiredPropertiesExist,
  unknownFormats,
  numericMinMax,
  stringLength,
  optionalNull,
  description,
  bqDisallowedCharacters,
  bqIllegalStart,
  unknownKeywords,
]

/** Runs the linters over the root and every subschema. */
export function lintSchema(
  schema: Readonly<Record<string, unknown>>,
  linters: readonly Linter[] = LINTERS,
): LintFinding[] {
  const findings: LintFinding[] = []
  for (const node of walkSubschemas(schema)) {
    for (const linter of linters) {
      if (linter.rootOnly === true && !node.isRoot) continue
      for (const message of linter.check(node)) {
        findings.push({
          linter: linter.name,
          level: linter.level,
          pointer: node.pointer || '/',
          message,
        })
      }
    }
  }
  return findings
}
