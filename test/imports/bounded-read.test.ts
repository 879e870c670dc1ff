/**
 * Issue 25: imports read files line by line in bounded memory (src/importers/line-reader.ts). A
 * line longer than the bound is reported and skipped, never buffered whole; a file with no valid
 * record is an error naming it, not an empty session. The memory bound is measured on the command
 * line as a process: its peak RSS (process.resourceUsage().maxRSS, printed at exit by a preloaded
 * script) importing 200 MB of NULs with no newline, against the same command importing a small
 * transcript.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { splitLines } from '../../src/importers/jsonl.js';
import { LineReader } from '../../src/importers/line-reader.js';
import { onCleanup } from '../helpers/leftovers.js';
import { tempDir } from '../helpers/temp.js';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'entity-memory.js');
const fixtures = join(import.meta.dirname, '..', 'importers', 'fixtures', 'claude-code');

async function readAll(path: string, maxLineBytes?: number) {
  const reader = new LineReader(path, maxLineBytes === undefined ? {} : { maxLineBytes });
  const lines: { line: number; text: string; terminated: boolean }[] = [];
  for await (const line of reader.lines()) lines.push(line);
  return { lines, problems: reader.problems, consumedBytes: reader.consumedBytes, nextLine: reader.nextLine };
}

/** Runs the command line with a preload that prints its peak RSS (KiB) on stderr at exit. */
function cliWithPeak(args: string[]): Promise<{ status: number | null; stdout: string; peakKiB: number }> {
  const preload = join(tempDir(), 'peak.cjs');
  writeFileSync(preload, "process.on('exit', () => process.stderr.write(`\\npeak-rss-kib ${process.resourceUsage().maxRSS}\\n`));\n");
  const child = spawn(process.execPath, ['--require', preload, bin, ...args], {
    env: { ...process.env, LOG_LEVEL: 'silent', ENTITY_MEMORY_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onCleanup(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.on('close', (status) => {
      const peak = /peak-rss-kib (\d+)/.exec(stderr);
      if (!peak) throw new Error(`no peak RSS reported; stderr: ${stderr}`);
      resolve({ status, stdout, peakKiB: Number(peak[1]) });
    }),
  );
}

describe('reading a transcript line by line', () => {
  it('splits as splitLines does (BOM, CRLF, blank lines), leaves a last line without newline unread, and skips a line over the bound with a problem', async () => {
    const dir = tempDir();
    const file = join(dir, 'lines.jsonl');
    const text = '\uFEFF{"a":1}\r\n\n{"b":"é"}\n' + 'x'.repeat(40) + '\n{"c":3}\n{"d":';
    writeFileSync(file, text);
    const read = await readAll(file, 16);
    expect(read.lines).toEqual([
      { line: 1, text: '{"a":1}', terminated: true },
      { line: 3, text: '{"b":"é"}', terminated: true },
      { line: 5, text: '{"c":3}', terminated: true },
      { line: 6, text: '{"d":', terminated: false },
    ]);
    expect(read.problems).toEqual([{ line: 4, message: expect.stringMatching(/^longer than .* MiB; line skipped$/) }]);
    const split = splitLines(text, 1);
    expect({ consumedBytes: read.consumedBytes, nextLine: read.nextLine }).toEqual({ consumedBytes: split.consumedBytes, nextLine: split.nextLine });

    // A real transcript read through it gives the lines splitLines gives.
    const plain = await readAll(join(fixtures, 'tools.jsonl'));
    expect(plain.lines.map(({ line, text: body }) => ({ line, text: body }))).toEqual(splitLines(readFileSync(join(fixtures, 'tools.jsonl')), 1).lines);
  });

  it('imports 200 MB of NULs without a newline in bounded memory: the line is skipped, the file is an error naming it, exit 1', async () => {
    const dir = tempDir();
    const small = join(dir, 'small.jsonl');
    writeFileSync(small, readFileSync(join(fixtures, 'plain.jsonl')));
    const nuls = join(dir, 'nuls.jsonl');
    const fd = openSync(nuls, 'w');
    const mib = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < 200; i += 1) writeSync(fd, mib);
    closeSync(fd);

    const baseline = await cliWithPeak(['import', 'claude-code', small, '--data-dir', tempDir()]);
    expect(baseline.status, baseline.stdout).toBe(0);
    const result = await cliWithPeak(['import', 'claude-code', nuls, '--data-dir', tempDir()]);
    // Reading the file whole costs its 200 MB; streamed, at most the 64 MiB line bound and a chunk.
    const extraMiB = (result.peakKiB - baseline.peakKiB) / 1024;
    console.log(`peak RSS: ${Math.round(baseline.peakKiB / 1024)} MiB importing a small transcript, ${Math.round(result.peakKiB / 1024)} MiB importing 200 MB of NULs (+${Math.round(extraMiB)} MiB)`);
    expect(extraMiB).toBeLessThan(120);
    expect(result.status, result.stdout).toBe(1);
    expect(result.stdout).toContain(`${nuls}:1: longer than 64 MiB and no newline; not read`);
    expect(result.stdout).toContain(`${nuls}:0: no valid record in its 209715200 bytes; file skipped`);
    expect(result.stdout).toMatch(/^sessions\t0$/m);
  });
});
