export {
  type Ajv,
  type AjvOptions,
  ASSERTED_FORMATS,
  compileSchema,
  createAjv,
  allowedValuesIssue,
  validationIssueText,
  type ValidationIssue,
  validatorsOnFirstUse,
  type ValidatorOnFirstUse,
} from './ajv-factory.js'
export { contentHash, contentHashOfText, hashedJsonText } from './content-hash.js'
export { memberRawText, objectMembers, objectText } from './json-text.js'
export type { DesignSchemaChecker, DesignSchemaProblem } from './design-schema.js'
export { jsonDepthExceeds, jsonTextNestsAtMost } from './json-depth.js'
export {
  compileLinearPattern,
  type LinearPattern,
  PatternCostExceeded,
  PatternCostMeter,
} from './linear-pattern.js'
export {
  dataStructureHash,
  parseIgluUri,
  type SchemaKey,
  schemaKeyProblems,
  schemaKeyToUri,
  schemaKeyUri,
} from './schema-key.js'
export { schemaSizeProblem, schemaWeight } from './schema-size-limits.js'
export {
  compareSchemaVer,
  formatSchemaVer,
  parseSchemaVer,
  SCHEMA_VER_RULE,
  type SchemaVer,
  sequencingProblem,
  bumpKind,
} from './schema-ver.js'
export { checkSelfDescribing, SELF_DESC_METASCHEMA_URI } from './self-describing.js'
export { isExactMultiple } from './exact-decimal.js'
export {
  copyWrittenNumbers,
  exactJsonText,
  keepsWrittenNumbers,
  markWrittenNumbers,
  numberFromText,
  parseJsonExactly,
  placeValue,
  RoundedNumberText,
  type WrittenNumber,
  writtenNumberAt,
  writtenNumbersIn,
} from './exact-numbers.js'
