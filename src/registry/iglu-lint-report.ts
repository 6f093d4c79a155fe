import { Type } from 'typebox'
import { reportMessageParts } from './schema-validation.js'

/** One item of Iglu Server's lint report. */
export const IgluReportItem = Type.Object({
  message: Type.String(),
  level: Type.Union([Type.Literal('ERROR'), Type.Literal('WARNING'), Type.Literal('INFO')]),
  pointer: Type.String(),
})

export interface IgluReportItemValue {
  readonly message: string
  readonly level: 'ERROR' | 'WARNING' | 'INFO'
  readonly pointer: string
}

/** A registry message, `"/pointer: text [rule]"`, as an item of Iglu Server's lint report. */
function reportItem(message: string, level: IgluReportItemValue['level']): IgluReportItemValue {
  const { pointer, text, rule } = reportMessageParts(message)
  return { message: rule === null ? text : `${text} [${rule}]`, level, pointer }
}

/** Every finding of a registry report, errors first, as Iglu Server lists them. */
export function igluReport(report: {
  readonly errors: readonly string[] | null
  readonly warnings: readonly string[] | null
  readonly info: readonly string[] | null
}): IgluReportItemValue[] {
  return [
    ...(report.errors ?? []).map((m) => reportItem(m, 'ERROR')),
    ...(report.warnings ?? []).map((m) => reportItem(m, 'WARNING')),
    ...(report.info ?? []).map((m) => reportItem(m, 'INFO')),
  ]
}

/** Iglu Server's message for a schema refused by its linter. */
export const NOT_CONFORMING = 'The schema does not conform to a JSON Schema v4 specification'
