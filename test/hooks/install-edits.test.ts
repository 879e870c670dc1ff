/**
 * The settings edits of `hooks install` as pure functions (src/hooks/install/): install then
 * uninstall gives back the user's file byte for byte, whatever its shape; our handler shares a
 * group with someone else's only when the user put it there, and then only it goes.
 */
import { describe, expect, it } from 'vitest';
import { installHookGroups, uninstallHookGroups, type HookGroupsFormat } from '../../src/hooks/install/hook-groups.js';
import { parseHookCommandLine, hookCommandLine } from '../../src/hooks/install/command.js';
import { unifiedDiff } from '../../src/hooks/install/settings-file.js';

const FORMAT: HookGroupsFormat = {
  events: [{ name: 'Stop' }, { name: 'PreToolUse', matcher: '*' }],
  handler: (command) => ({ type: 'command', command, timeout: 10 }),
};
const OURS = "/usr/bin/node /opt/em/bin/entity-memory-hook.cjs claude-code --data-dir '/home/dev/my data'";

/** A file, and what uninstall makes of it once installed: the same, but for an event (or `hooks`) left empty, which goes. */
const FILES: [string, string, string][] = [
  ['empty object', '{}', '{}'],
  ['blank file', '\n', '{}\n'],
  ['tabs and CRLF', '{\r\n\t"model": "opus",\r\n\t"hooks": {\r\n\t\t"PreToolUse": [{"hooks": []}]\r\n\t}\r\n}\r\n', 'same'],
  ['all on one line', '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]},"x":1}', 'same'],
  ['a comment after the property before ours', '{\n  "a": 1, // one\n  "b": 2 // two\n}\n', 'same'],
  ['an empty event of the user', '{\n  "a": 1, // one\n  "hooks": { "Stop": [] } // none yet\n}\n', '{\n  "a": 1 // one\n}\n'],
  ['a comment inside an empty array', '{\n  "hooks": {\n    "Stop": [\n      // later\n    ]\n  }\n}\n', 'same'],
  ['no final newline', '{\n  "hooks": {\n    "PreToolUse": [\n      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "lint" } ] }\n    ]\n  }\n}', 'same'],
];

describe('install then uninstall', () => {
  it.each(FILES)('%s: uninstall gives the file back, and installing twice is the same as once', (_name, text, uninstalled) => {
    const installed = installHookGroups('settings.json', text, FORMAT, OURS);
    expect(JSON.parse(installed.replace(/\/\/.*$/gm, '')).hooks.Stop.at(-1)).toEqual({ hooks: [{ type: 'command', command: OURS, timeout: 10 }] });
    expect(installHookGroups('settings.json', installed, FORMAT, OURS)).toBe(installed);
    expect(uninstallHookGroups('settings.json', installed)).toBe(uninstalled === 'same' ? text : uninstalled);
  });

  it("removes our handler (here one installed before the hook became .cjs) from a group the user shares with theirs, and theirs stays; a fresh group of ours is added", () => {
    const shared = '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"},{"type":"command","command":"node /x/entity-memory-hook.js claude-code --data-dir /old"}]}]}}';
    const installed = installHookGroups('s.json', shared, FORMAT, OURS);
    const stop = JSON.parse(installed).hooks.Stop;
    expect(stop).toEqual([{ hooks: [{ type: 'command', command: 'say done' }] }, { hooks: [{ type: 'command', command: OURS, timeout: 10 }] }]);
    expect(uninstallHookGroups('s.json', installed)).toBe('{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]}}');
  });

  it('removes ours from an event it no longer hooks, and a second entry of ours', () => {
    const old = JSON.stringify({ hooks: { Notification: [{ hooks: [{ type: 'command', command: OURS }] }], Stop: [{ hooks: [{ type: 'command', command: OURS, timeout: 10 }] }, { hooks: [{ type: 'command', command: OURS }] }] } }, null, 2);
    const installed = JSON.parse(installHookGroups('s.json', old, FORMAT, OURS));
    expect(Object.keys(installed.hooks)).toEqual(['Notification', 'Stop', 'PreToolUse']);
    expect(installed.hooks.Notification).toEqual([]);
    expect(installed.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: OURS, timeout: 10 }] }]);
  });
});

describe('the command line', () => {
  it.each([['/usr/bin/node'], ['/home/dev/my node/bin/node'], ["/tmp/it's \"here\""], ['/a/$HOME/`x`']])('quotes %s for sh and reads it back', (path) => {
    const line = hookCommandLine({ node: path, script: `${path}/entity-memory-hook.cjs`, agent: 'codex', dataDir: path });
    expect(parseHookCommandLine(line)).toEqual({ node: path, script: `${path}/entity-memory-hook.cjs`, agent: 'codex', dataDir: path });
  });

  it('reads back a command installed before the hook became .cjs, and no other script', () => {
    expect(parseHookCommandLine('/usr/bin/node /opt/em/bin/entity-memory-hook.js gemini --data-dir /d')).toEqual({ node: '/usr/bin/node', script: '/opt/em/bin/entity-memory-hook.js', agent: 'gemini', dataDir: '/d' });
    expect(parseHookCommandLine('/usr/bin/node /opt/em/bin/other-hook.cjs gemini --data-dir /d')).toBeUndefined();
  });
});

describe('unifiedDiff', () => {
  it('gives hunks with three lines of context, old lines before new', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', ''].join('\n');
    const after = before.replace('e\n', 'E\n');
    expect(unifiedDiff('f', before, after)).toBe('--- f\n+++ f\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n');
    expect(unifiedDiff('f', before, before)).toBe('');
  });
});
