import { describe, expect, it } from 'vitest';
import { parseConfigEntries, type ConfigEntry } from '../../src/git/parse.js';
import { autoCommitState, judgeRepoConfig, unsafeConfigMessage } from '../../src/projects/repo-config.js';

const entry = (key: string, value: string | null = '/usr/bin/prog', scope = 'local', origin = 'file:.git/config'): ConfigEntry => ({ scope, origin, key, value });

describe('judging a repo config', () => {
  it.each([
    ['nothing', [], []],
    ['keys switched off per call are not unsafe', [entry('core.fsmonitor'), entry('diff.external'), entry('core.pager'), entry('gpg.program')], []],
    ['a clean driver', [entry('filter.lfs.clean')], ['filter.lfs.clean']],
    ['smudge and process, a subsection with dots and =', [entry('filter.a.b=c.smudge'), entry('filter.X.process')], ['filter.X.process', 'filter.a.b=c.smudge']],
    ['a key without a value', [entry('filter.x.clean', null)], ['filter.x.clean']],
    ['required alone runs nothing', [entry('filter.x.required', 'true')], []],
    ['a driver key of another section', [entry('diff.x.textconv'), entry('merge.x.driver')], []],
  ] as const)('%s', (_name, entries, unsafe) => {
    expect(judgeRepoConfig(entries).unsafeKeys).toEqual(unsafe);
  });

  it('neutralises every driver it finds, and pins trust to the keys and values', () => {
    const verdict = judgeRepoConfig([entry('filter.x.clean'), entry('filter.x.smudge'), entry('filter.y.process', 'p', 'global', 'file:/home/u/.gitconfig')]);
    expect(verdict.neutralisers).toEqual([
      ['filter.x.clean', ''],
      ['filter.x.smudge', ''],
      ['filter.x.process', ''],
      ['filter.x.required', 'false'],
      ['filter.y.clean', ''],
      ['filter.y.smudge', ''],
      ['filter.y.process', ''],
      ['filter.y.required', 'false'],
    ]);
    expect(verdict.unsafeOrigins).toEqual(['filter.x.clean (local config .git/config)', 'filter.x.smudge (local config .git/config)', 'filter.y.process (global config /home/u/.gitconfig)']);
    expect(autoCommitState(verdict, null)).toBe('DISABLED_UNSAFE_CONFIG');
    expect(autoCommitState(verdict, verdict.fingerprint)).toBe('TRUSTED');
    const changed = judgeRepoConfig([entry('filter.x.clean', '/other'), entry('filter.x.smudge'), entry('filter.y.process', 'p')]);
    expect(autoCommitState(changed, verdict.fingerprint)).toBe('DISABLED_UNSAFE_CONFIG');
    expect(unsafeConfigMessage('p1', changed, verdict.fingerprint)).toContain('It has changed since you trusted it.');
    expect(autoCommitState(judgeRepoConfig([]), null)).toBe('ENABLED');
    expect(autoCommitState(judgeRepoConfig([]), verdict.fingerprint)).toBe('ENABLED');
  });

  it('parses git config --list --show-scope --show-origin -z', () => {
    const output = 'local\0file:.git/config\0core.bare\nfalse\0global\0file:/h/.gitconfig\0x.flag\0command\0command line:\0a.b\nmulti\nline\0';
    expect(parseConfigEntries(output)).toEqual([
      { scope: 'local', origin: 'file:.git/config', key: 'core.bare', value: 'false' },
      { scope: 'global', origin: 'file:/h/.gitconfig', key: 'x.flag', value: null },
      { scope: 'command', origin: 'command line:', key: 'a.b', value: 'multi\nline' },
    ]);
  });
});
