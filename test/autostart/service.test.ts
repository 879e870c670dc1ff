/**
 * `entity-memory service` as a user runs it, in a temporary HOME. This machine's systemctl is
 * real but has no user session (no D-Bus for the user: a container), as on many machines: install
 * then writes the unit and says how to start the server by hand. Where systemd answers, the
 * commands it is given are checked with a stand-in `systemctl` first on PATH that records them
 * (systemd itself cannot run here). What is written is read back as systemd reads it.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installedDataDir, launchdPlist, systemdUnit, systemdWord } from '../../src/autostart/units.js';
import { cli } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const linux = process.platform === 'linux';

/** A HOME of its own, and the environment a command runs with there. */
function home(extra: NodeJS.ProcessEnv = {}): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir('em-service-home-');
  return { dir, env: { HOME: dir, XDG_CONFIG_HOME: '', OPENPROGRAM_HOME: join(dir, '.openprogram'), ...extra } };
}

/** A `systemctl` that records each call in `log` and answers like systemd does. */
function recordingSystemctl(log: string): string {
  const bin = tempDir('em-service-bin-');
  const script = join(bin, 'systemctl');
  writeFileSync(
    script,
    `#!/bin/sh\necho "$*" >> '${log}'\ncase "$*" in *is-active*) echo active ;; esac\nexit 0\n`,
  );
  chmodSync(script, 0o755);
  return bin;
}

describe('the unit and the plist', () => {
  it('quote what systemd would expand or split, and read back the data dir', () => {
    expect(systemdWord('/usr/bin/node')).toBe('/usr/bin/node');
    expect(systemdWord('/home/a b/data')).toBe('"/home/a b/data"');
    expect(systemdWord('/srv/100%/$HOME/"x"\\y')).toBe('"/srv/100%%/$$HOME/\\"x\\"\\\\y"');
    for (const dataDir of ['/home/dana/.openprogram', '/home/a b/da"ta %h $PATH\\x']) {
      const unit = systemdUnit({ node: '/usr/bin/node', script: '/opt/em/bin/entity-memory.js', dataDir, port: 4100, path: '/usr/bin:/bin' });
      expect(unit).toContain('ExecStart=/usr/bin/node /opt/em/bin/entity-memory.js serve --data-dir ');
      expect(unit).toContain('--port 4100\n');
      expect(installedDataDir(unit)).toBe(dataDir);
      const plist = launchdPlist({ node: '/usr/local/bin/node', script: '/opt/em/bin/entity-memory.js', dataDir, path: '/usr/bin' }, '/Users/dana/Library/Logs/entity-memory');
      expect(installedDataDir(plist)).toBe(dataDir);
      expect(plist).not.toContain('--port');
    }
  });
});

describe.runIf(linux)('entity-memory service on Linux', () => {
  it('without a systemd user session: writes the unit, says how to start the server by hand, exits 2', async () => {
    const { dir, env } = home();
    const dataDir = join(dir, 'memory');
    const run = await cli(['service', 'install', '--data-dir', dataDir, '--port', '4321'], env);
    const unitFile = join(dir, '.config', 'systemd', 'user', 'entity-memory.service');
    expect(run.stdout).toBe(`wrote ${unitFile}\n`);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^entity-memory: systemd did not start it \(.+\)\. Where systemd runs for your user, start it with: systemctl --user daemon-reload && systemctl --user enable --now entity-memory\.service — or run the server yourself: \S+ \S+bin\/entity-memory\.js serve --data-dir \S+\/memory --port 4321$/);
    expect(run.status).toBe(2);
    const unit = readFileSync(unitFile, 'utf8');
    expect(installedDataDir(unit)).toBe(dataDir);
    expect(unit).toMatch(new RegExp(`^ExecStart=${process.execPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\S+/bin/entity-memory\\.js serve --data-dir \\S+ --port 4321$`, 'm'));
    expect(statSync(unitFile).mode & 0o777).toBe(0o600);

    const status = await cli(['service', 'status'], env);
    expect(status.status).toBe(0);
    expect(status.stdout).toContain(`service: installed (${unitFile}), data dir ${dataDir}, systemd says unknown (`);
    expect(status.stdout).toContain(`service: data dir ${dataDir}: no server running (no server.json)`);
  });

  it('with systemd answering: enables and starts the unit, reports it, and uninstall stops it and removes the file', async () => {
    const log = join(tempDir('em-service-log-'), 'calls');
    const bin = recordingSystemctl(log);
    const config = tempDir('em-service-xdg-');
    const { dir, env } = home({ PATH: `${bin}:${process.env.PATH}`, XDG_CONFIG_HOME: config });
    const run = await cli(['service', 'install'], env);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const unitFile = join(config, 'systemd', 'user', 'entity-memory.service');
    expect(run.stdout).toBe(
      `wrote ${unitFile}\nstarted: systemctl --user status entity-memory.service; logs: journalctl --user -u entity-memory; data dir ${join(dir, '.openprogram')}\n`,
    );
    expect(readFileSync(log, 'utf8')).toBe('--user daemon-reload\n--user enable --now entity-memory.service\n--user restart entity-memory.service\n');
    // The PATH of the shell it was installed from, so the service finds the same git.
    expect(readFileSync(unitFile, 'utf8')).toContain(`Environment=PATH=${bin}:`);

    const status = await cli(['service', 'status'], env);
    expect(status.stdout.split('\n')[0]).toBe(`service: installed (${unitFile}), data dir ${join(dir, '.openprogram')}, systemd says active`);
    // hooks status says it too.
    mkdirSync(join(dir, '.openprogram'));
    const hooks = await cli(['hooks', 'status'], env);
    expect(hooks.stdout).toContain(`service: installed (${unitFile}), data dir ${join(dir, '.openprogram')}, systemd says active`);

    writeFileSync(log, '');
    const removed = await cli(['service', 'uninstall'], env);
    expect(removed.status).toBe(0);
    expect(removed.stdout).toBe(`removed ${unitFile}; the server is stopped (start it by hand with entity-memory serve)\n`);
    expect(readFileSync(log, 'utf8')).toBe('--user disable --now entity-memory.service\n--user daemon-reload\n');
    expect(existsSync(unitFile)).toBe(false);
    expect((await cli(['service', 'status'], env)).stdout).toBe(`service: not installed (no ${unitFile}; entity-memory service install)\n`);
  });

  it('refuses what it does not know, in one line, writing nothing', async () => {
    const { dir, env } = home();
    for (const args of [['service'], ['service', 'start'], ['service', 'install', '--port', 'x'], ['service', 'status', '--data-dir', dir], ['service', 'install', '--data-dir', '']]) {
      const run = await cli(args, env);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(run.stdout).toBe('');
    }
    expect(existsSync(join(dir, '.config'))).toBe(false);
  });
});
