import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onCleanup } from './leftovers.js';

/** A new empty folder (its real path), removed after the test. */
export function tempDir(prefix = 'em-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
