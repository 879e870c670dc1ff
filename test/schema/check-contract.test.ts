import { spawnSync } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const root = join(import.meta.dirname, '..', '..');
const script = join(root, 'scripts', 'check-contract.mjs');

function check(sharedDir: string) {
  const run = spawnSync(process.execPath, [script, sharedDir], { encoding: 'utf8' });
  return { status: run.status, out: run.stdout + run.stderr };
}

/** A stand-in for `../shared/contract`: a copy of the committed contract/. */
function sharedCopy(): string {
  const dir = join(tempDir(), 'contract');
  cpSync(join(root, 'contract'), dir, { recursive: true });
  return dir;
}

describe('scripts/check-contract.mjs', () => {
  it('passes when the shared contract is the committed copy', () => {
    const result = check(sharedCopy());
    expect(result).toMatchObject({ status: 0 });
    expect(result.out).toMatch(/^contract check passed: contract\/ matches .* \(3 files\)\n$/);
  });

  it('fails naming each file that differs, is missing here, or is only here, and says how to fix it', () => {
    const shared = sharedCopy();
    writeFileSync(join(shared, 'schema.graphql'), 'type Query { changed: Int }\n');
    writeFileSync(join(shared, 'api-v2.md'), '# new\n');
    rmSync(join(shared, 'ui.md'));
    const result = check(shared);
    expect(result.status).toBe(1);
    expect(result.out).toContain('contract/schema.graphql differs from');
    expect(result.out).toContain('(first at line 1)');
    expect(result.out).toContain('contract/api-v2.md is missing');
    expect(result.out).toMatch(/contract\/ui\.md is not in .*contract\n/);
    expect(result.out).toMatch(/cp -r .* contract/);
  });

  it('is skipped with one printed line where there is no shared contract', () => {
    const result = check(join(tempDir(), 'no-shared', 'contract'));
    expect(result.status).toBe(0);
    expect(result.out).toMatch(/^contract check skipped: .*no-shared\/contract does not exist \(the tests use the committed copy in contract\/\)\n$/);
  });
});
