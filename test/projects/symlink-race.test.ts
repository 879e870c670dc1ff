/**
 * Issue 26 item 5, no check-then-use on paths: while another process swaps a folder of the
 * working tree for a symlink to a folder outside it and back, as fast as it can, thousands of
 * times, the turn's capture (files hashed into the repo), a restore's writes and deletions, and
 * a transcript's reads run in a loop. Afterwards nothing outside was written (the outside folder
 * holds exactly what it held) and nothing outside was read (no object in the repo holds the
 * outside file's text, and no transcript line from outside was read). Folders are reached the
 * way this machine allows (src/fs/inside.ts): through /proc/self/fd on Linux (exact: reads and
 * writes are raced), by checked paths elsewhere (best effort: reads are raced; a check there can
 * be escaped by a swap and a swap back timed between two calls, as the README says).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BeyondLinkError, entryInside, insideMode, openRealFile } from '../../src/fs/inside.js';
import { captureFileStates, writeStates, type ProjectGitRun } from '../../src/git/project-plumbing.js';
import { runGit } from '../../src/git/run.js';
import { git, tempDir } from '../git/helpers.js';

/** A process of its own swapping `dir` for a symlink to `outside` and back until killed; prints each 1,000th swap. */
function swapper(dir: string, outside: string): { child: ChildProcess; swaps(): number; stop(): Promise<number> } {
  const script = `
    const fs = require('node:fs');
    const [dir, outside] = process.argv.slice(1);
    const away = dir + '.away';
    let n = 0;
    const quietly = (step) => { try { step(); } catch {} };
    for (;;) {
      quietly(() => fs.renameSync(dir, away));
      quietly(() => fs.symlinkSync(outside, dir));
      quietly(() => fs.unlinkSync(dir));
      // A write may have made the folder again while it was away: that one goes (it is inside;
      // rmSync never follows a link), as many times as it takes while writes go on in it.
      for (;;) {
        try {
          fs.renameSync(away, dir);
          break;
        } catch {
          quietly(() => fs.rmSync(dir, { recursive: true, force: true }));
        }
      }
      if (++n % 1000 === 0) process.stdout.write(n + '\\n');
    }`;
  const child = spawn(process.execPath, ['-e', script, dir, outside], { stdio: ['ignore', 'pipe', 'inherit'] });
  let swaps = 0;
  const thousands: (() => void)[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    swaps = Number(chunk.toString().trim().split('\n').pop());
    thousands.splice(0).forEach((wake) => wake());
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    swaps: () => swaps,
    async stop() {
      child.kill('SIGKILL');
      await exited;
      return swaps;
    },
  };
}

let stopSwapper: (() => Promise<number>) | undefined;
afterEach(async () => {
  await stopSwapper?.();
  stopSwapper = undefined;
  insideMode.procFd = PROC_FD;
});
const PROC_FD = insideMode.procFd;

/** Puts the folder back where the swapper was killed: it may be away, with the link (or nothing) in its place. */
function putBack(dir: string): void {
  if (!existsSync(`${dir}.away`)) return;
  rmSync(dir, { recursive: true, force: true });
  renameSync(`${dir}.away`, dir);
}

/** The way this machine has: /proc/self/fd where there is one (exact); else checked paths, for reads only. */
const WAYS: [string, boolean][] = PROC_FD ? [['through /proc/self/fd, reads and writes', true]] : [['by checked paths (no /proc), reads', false]];

describe.each(WAYS)('a folder swapped for a symlink while files are read and written (%s)', (_name, procFd) => {
  it('writes nothing outside and reads nothing from outside, over thousands of swaps', async () => {
    insideMode.procFd = procFd;
    const top = realpathSync(tempDir('em-race-'));
    git(top, 'init', '-q', '-b', 'main');
    mkdirSync(join(top, 'sub'));
    writeFileSync(join(top, 'sub', 'f.txt'), 'inside\n');
    const outside = realpathSync(tempDir('em-race-outside-'));
    const secret = `OUTSIDE-${randomUUID()}`;
    writeFileSync(join(outside, 'f.txt'), `${secret}\n`);
    writeFileSync(join(outside, 'gone.txt'), `${secret} gone\n`);
    writeFileSync(join(outside, 't.jsonl'), `{"secret":"${secret}"}\n`);
    writeFileSync(join(top, 'sub', 't.jsonl'), '{"inside":true}\n');
    const outsideBefore = snapshot(outside);
    const gitDir = join(top, '.git');
    const run: ProjectGitRun = (args, opts = {}) => runGit(args, { cwd: top, input: opts.input, okExitCodes: opts.okExitCodes, env: { ...process.env, ...opts.env } });
    const blob = (await run(['hash-object', '-w', '--stdin'], { input: 'restored\n' })).stdout.trim();

    const swapping = swapper(join(top, 'sub'), outside);
    stopSwapper = swapping.stop;
    const outcomes = { done: 0, refused: 0 };
    const tally = async (work: () => Promise<unknown>) => {
      try {
        await work();
        outcomes.done += 1;
      } catch (error) {
        // A swap seen: refused. Anything else (a folder missing mid-swap) is not a read or write outside either.
        if (error instanceof BeyondLinkError) outcomes.refused += 1;
        else if (!['ENOENT', 'ENOTDIR', 'EEXIST'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
      }
    };
    let transcriptLinesFromOutside = 0;
    let ops = 0;
    // Until the swapper has done 3,000 swaps, and at least 300 rounds ran against them.
    while (swapping.swaps() < 3_000 || ops < 300) {
      ops += 1;
      await tally(() => captureFileStates(run, top, gitDir, ['sub/f.txt', 'sub/new.txt']));
      if (procFd) {
        await tally(() => writeStates(top, [{ path: 'sub/w.txt', mode: '100644', oid: blob }], async () => Buffer.from('restored\n')));
        await tally(() => writeStates(top, [{ path: 'sub/gone.txt', mode: null, oid: null }], async () => Buffer.alloc(0)));
        await tally(() => writeStates(top, [{ path: 'sub/deep/l', mode: '120000', oid: blob }], async () => Buffer.from('target')));
      }
      await tally(() => entryInside(top, 'sub/f.txt'));
      await tally(async () => {
        const file = await openRealFile(join(top, 'sub', 't.jsonl'));
        if (!file) return;
        try {
          if ((await file.readFile('utf8')).includes(secret)) transcriptLinesFromOutside += 1;
        } finally {
          await file.close();
        }
      });
      if (ops > 20_000) throw new Error(`the swapper did only ${swapping.swaps()} swaps`);
    }
    const swaps = await swapping.stop();
    stopSwapper = undefined;
    putBack(join(top, 'sub'));

    // The race was run: both outcomes happened, over thousands of swaps.
    expect(swaps).toBeGreaterThanOrEqual(3_000);
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(outcomes.done).toBeGreaterThan(0);
    // Nothing written outside: the same names, the same bytes.
    expect(snapshot(outside)).toEqual(outsideBefore);
    // Nothing read from outside: no object in the repo holds the outside text, no scratch left, no transcript line read.
    const objects = (await run(['cat-file', '--batch-all-objects', '--batch'])).stdout;
    expect(objects.includes(secret)).toBe(false);
    expect(objects.length).toBeGreaterThan(0);
    expect(readdirSync(gitDir).filter((name) => name.startsWith('entity-memory-'))).toEqual([]);
    expect(transcriptLinesFromOutside).toBe(0);
    // And inside, the writes that went through are there.
    if (procFd) expect(readFileSync(join(top, 'sub', 'w.txt'), 'utf8')).toBe('restored\n');
  });
});

/** Every file under `dir` with its content, and every folder. */
function snapshot(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) Object.assign(out, { [`${rel}/`]: 'folder' }, snapshot(dir, rel));
    else out[rel] = entry.isSymbolicLink() ? 'link' : readFileSync(join(dir, rel), 'utf8');
  }
  return out;
}
