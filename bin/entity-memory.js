#!/usr/bin/env node
// Runs the compiled command line, dist/cli.js, with plain node (npm install and npm start
// build it: scripts/build-server.mjs).
//
// In a development checkout (src/ beside dist/) whose dist/ is missing or was built from other
// sources, it does not build (tsc takes seconds, and the package folder may not be writable):
// it says so on stderr and runs the TypeScript through tsx instead, so what runs is always what
// src/ says. `npm run build` (or `npm start`) compiles it again.
import { existsSync } from 'node:fs';

const src = new URL('../src/cli.ts', import.meta.url);
let compiled = true;
if (existsSync(src)) {
  const { serverBuildIsFresh } = await import('../scripts/build-server.mjs');
  compiled = serverBuildIsFresh();
}

if (compiled) {
  await import('../dist/cli.js');
} else {
  const why = existsSync(new URL('../dist/cli.js', import.meta.url)) ? 'dist/ does not match src/' : 'dist/ is not built';
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    console.error(`entity-memory: ${why} and tsx is not installed; run npm run build`);
    process.exit(2);
  }
  console.error(`entity-memory: ${why}; running src/ through tsx (slower start); npm run build compiles it`);
  register();
  await import(src.href);
}
