/**
 * src/fs/inside.ts, both ways it reaches folders (through /proc/self/fd where there is one, and
 * by checked paths as on macOS): files read, written, linked and removed under a folder, and
 * every way out refused — a folder on the way that is a symlink, a symlink at the final name
 * (replaced, never followed), a FIFO (never opened for long), an absolute or `..` path.
 * The race with a folder swapped meanwhile: test/projects/symlink-race.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BeyondLinkError, copyOutOf, entryInside, insideMode, openRealFile, removeInside, symlinkInside, writeInside } from '../../src/fs/inside.js';
import { tempDir } from '../helpers/temp.js';

const PROC_FD = insideMode.procFd;
afterEach(() => {
  insideMode.procFd = PROC_FD;
});

/** A top folder with `a/b.txt`, and an outside folder (with `b.txt`) linked from `top/link`. */
function tree(): { top: string; outside: string } {
  const top = realpathSync(tempDir('em-inside-'));
  const outside = realpathSync(tempDir('em-outside-'));
  mkdirSync(join(top, 'a'));
  writeFileSync(join(top, 'a', 'b.txt'), 'inside\n');
  writeFileSync(join(outside, 'b.txt'), 'outside\n');
  symlinkSync(outside, join(top, 'link'));
  return { top, outside };
}

describe.each(PROC_FD ? [true, false] : [false])('files under a folder (through /proc/self/fd: %s)', (procFd) => {
  it('reads what is there as lstat would, and copies a file out with its mode', async () => {
    insideMode.procFd = procFd;
    const { top } = tree();
    symlinkSync('b.txt', join(top, 'a', 'l'));
    const scratch = tempDir('em-scratch-');
    expect(await copyOutOf(top, 'a/b.txt', join(scratch, 'copy'))).toMatchObject({ kind: 'file', size: 7 });
    expect(readFileSync(join(scratch, 'copy'), 'utf8')).toBe('inside\n');
    expect(await copyOutOf(top, 'a/l', join(scratch, 'l'))).toEqual({ kind: 'symlink', target: 'b.txt' });
    expect(await copyOutOf(top, 'a/none', join(scratch, 'n'))).toEqual({ kind: 'missing' });
    expect(await copyOutOf(top, 'none/x', join(scratch, 'n'))).toEqual({ kind: 'missing' });
    expect(await entryInside(top, 'a')).toEqual({ kind: 'folder' });
    execFileSync('mkfifo', [join(top, 'a', 'fifo')]);
    expect(await copyOutOf(top, 'a/fifo', join(scratch, 'f'))).toEqual({ kind: 'other' });
  });

  it('refuses a path through a symlinked folder, reading or writing, and leaves the outside as it was', async () => {
    insideMode.procFd = procFd;
    const { top, outside } = tree();
    await expect(copyOutOf(top, 'link/b.txt', join(tempDir(), 'x'))).rejects.toBeInstanceOf(BeyondLinkError);
    await expect(entryInside(top, 'link/b.txt')).rejects.toBeInstanceOf(BeyondLinkError);
    await expect(writeInside(top, 'link/new.txt', Buffer.from('x'), 0o644)).rejects.toBeInstanceOf(BeyondLinkError);
    await expect(writeInside(top, 'link/deeper/new.txt', Buffer.from('x'), 0o644)).rejects.toBeInstanceOf(BeyondLinkError);
    await expect(removeInside(top, 'link/b.txt')).rejects.toBeInstanceOf(BeyondLinkError);
    await expect(writeInside(top, 'a/b.txt/c', Buffer.from('x'), 0o644)).rejects.toBeInstanceOf(BeyondLinkError);
    expect(readFileSync(join(outside, 'b.txt'), 'utf8')).toBe('outside\n');
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
    expect(existsSync(join(outside, 'deeper'))).toBe(false);
    expect(await openRealFile(join(top, 'link', 'b.txt'))).toBeNull();
    for (const bad of ['/etc/passwd', '../x', 'a/../../x', '', 'a//b', 'a/./b']) {
      await expect(writeInside(top, bad, Buffer.from('x'), 0o644)).rejects.toThrow(/not a relative path/);
    }
  });

  it('writes files and links in place of what was there (a symlink replaced, not followed), makes folders, removes', async () => {
    insideMode.procFd = procFd;
    const { top, outside } = tree();
    symlinkSync(join(outside, 'b.txt'), join(top, 'a', 'to-outside'));
    await writeInside(top, 'a/to-outside', Buffer.from('mine\n'), 0o755);
    expect(lstatSync(join(top, 'a', 'to-outside')).isFile()).toBe(true);
    expect(statSync(join(top, 'a', 'to-outside')).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(outside, 'b.txt'), 'utf8')).toBe('outside\n');
    await writeInside(top, 'new/deep/c.txt', Buffer.from('c\n'), 0o644);
    expect(readFileSync(join(top, 'new', 'deep', 'c.txt'), 'utf8')).toBe('c\n');
    await symlinkInside(top, 'a/b.txt', 'elsewhere');
    expect(readlinkSync(join(top, 'a', 'b.txt'))).toBe('elsewhere');
    await removeInside(top, 'link');
    expect(existsSync(outside)).toBe(true);
    expect(existsSync(join(top, 'link'))).toBe(false);
    await removeInside(top, 'a/none');
    await expect(writeInside(top, 'new', Buffer.from('x'), 0o644)).rejects.toThrow(/is a folder now/);
    const file = await openRealFile(join(top, 'new', 'deep', 'c.txt'));
    expect(file).not.toBeNull();
    await file!.close();
  });
});
