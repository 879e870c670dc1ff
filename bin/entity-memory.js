#!/usr/bin/env node
// Runs the TypeScript command line through tsx's loader (no build step).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
