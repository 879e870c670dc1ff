#!/usr/bin/env node
/**
 * Checks that contract/ (the copy of the team's contract the tests read) is byte for byte
 * the team's shared contract, `../shared/contract` beside the checkout by default, or the
 * folder given as the first argument.
 *
 * The tests read only the committed copy, so a fresh clone passes on its own; this check is
 * what notices the team's contract moving on. Where the shared folder does not exist (a
 * clone elsewhere) it prints one line saying so and exits 0.
 *
 * Exit status: 0 when equal or skipped, 1 when a file differs, is missing or is extra.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ours = join(root, 'contract');
const shared = resolve(root, process.argv[2] ?? join('..', 'shared', 'contract'));
const shown = process.argv[2] ?? '../shared/contract';

if (!existsSync(shared)) {
  console.log(`contract check skipped: ${shown} does not exist (the tests use the committed copy in contract/)`);
  process.exit(0);
}

/** Relative paths of the regular files under `dir`, sorted. */
function files(dir, prefix = '') {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((entry) => {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) return files(dir, path);
      return statSync(join(dir, path)).isFile() ? [path] : [];
    })
    .sort();
}

/** "line N" of the first difference, so the message points at it. */
function firstDifference(a, b) {
  const left = a.toString('utf8').split('\n');
  const right = b.toString('utf8').split('\n');
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    if (left[i] !== right[i]) return `line ${i + 1}`;
  }
  return 'bytes';
}

const theirs = files(shared);
const mine = existsSync(ours) ? files(ours) : [];
const problems = [];
for (const path of theirs) {
  if (!mine.includes(path)) {
    problems.push(`contract/${path} is missing`);
    continue;
  }
  const a = readFileSync(join(ours, path));
  const b = readFileSync(join(shared, path));
  if (!a.equals(b)) problems.push(`contract/${path} differs from ${shown}/${path} (first at ${firstDifference(a, b)})`);
}
for (const path of mine) {
  if (!theirs.includes(path)) problems.push(`contract/${path} is not in ${shown}`);
}

if (problems.length > 0) {
  console.error(`contract check failed: contract/ is not the team's contract in ${shown}:`);
  for (const problem of problems) console.error(`  ${problem}`);
  console.error(`Copy it (rm -r contract && cp -r ${shown} contract), make the code follow it, and commit both.`);
  process.exit(1);
}
console.log(`contract check passed: contract/ matches ${shown} (${theirs.length} files)`);
