#!/usr/bin/env node
// The `records` command (package.json bin). It runs the TypeScript build in dist/.
import('../dist/src/cli/main.js').catch((error) => {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('dist/src/cli/main.js')) throw error
  process.stderr.write('records: falta la compilación en dist/: ejecute npm run build\n')
  process.exitCode = 1
})
