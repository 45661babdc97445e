#!/usr/bin/env node
// The `records` command (package.json bin). The TypeScript build lives in dist/: `npm run build`.
import '../dist/src/cli/main.js'
