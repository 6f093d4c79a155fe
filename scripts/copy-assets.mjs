// Copies the files the built server serves as they are (the event inspector page) into dist/,
// beside the module that serves them: the built server never reads src/.
import { cpSync } from 'node:fs'

cpSync(
  new URL('../src/inspection/ui/inspector-ui/', import.meta.url),
  new URL('../dist/inspection/ui/inspector-ui/', import.meta.url),
  { recursive: true },
)
