#!/usr/bin/env node
// Writes dist/src/config/modules-validator.cjs: modules.yaml's shape validator as standalone code
// (src/config/shape-validator.ts), so that no start compiles the schema. Run by `npm run build`
// after tsc, from the module tsc just built.
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const { BUILT_VALIDATOR_FILE, shapeValidatorSource } = await import(
  pathToFileURL(join(ROOT, 'dist/src/config/shape-validator.js')).href
)
writeFileSync(join(ROOT, 'dist/src/config', BUILT_VALIDATOR_FILE), shapeValidatorSource())
