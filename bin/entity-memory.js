#!/usr/bin/env node
// Runs the compiled command line, dist/cli.js, with plain node (npm start and npm pack build it:
// scripts/build-server.mjs).
//
// In a development checkout (src/ beside dist/) whose dist/ is missing or was built from other
// sources, it does not build (tsc takes seconds, and the package folder may not be writable):
// it says so on stderr and runs the TypeScript through tsx instead, so what runs is always what
// src/ says. `npm run build` (or `npm start`) compiles it again.
// A checkout fresh from `npm install` has no generated Prisma client yet (no install script of
// ours runs): it is generated first, its progress on stderr.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const src = new URL('../src/cli.ts', import.meta.url);
let compiled = true;
if (existsSync(src)) {
  if (existsSync(new URL('../prisma/schema.prisma', import.meta.url)) && !existsSync(new URL('../src/generated/prisma/client.ts', import.meta.url))) {
    const generated = spawnSync(process.execPath, [fileURLToPath(new URL('../scripts/prisma-generate.mjs', import.meta.url))], { stdio: ['ignore', 2, 2] });
    if (generated.status !== 0) process.exit(2);
  }
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
