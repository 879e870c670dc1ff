/**
 * `entity-memory service install|uninstall|status`: the server started at login and kept running,
 * by the user's own service manager (systemd on Linux, launchd on macOS; src/autostart/units.ts
 * has what is written). Never needs root: a user unit, a LaunchAgent.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import {
  installedDataDir,
  LAUNCHD_LABEL,
  launchdLogDir,
  launchdPlist,
  launchdPlistPath,
  serveArgv,
  SYSTEMD_UNIT,
  systemdUnit,
  systemdUnitPath,
  type ServiceSpec,
} from '../autostart/units.js';
import { ConfigError, loadConfig } from '../config.js';
import { packageScript, shellQuote } from '../hooks/install/command.js';
import { CannotRun } from './errors.js';
import { serverLine } from './running-server.js';
import { answeredInfo, COMMON_LINES } from './help.js';

export const SERVICE_HELP = `usage: entity-memory service install [--data-dir DIR] [--port N]
       entity-memory service uninstall
       entity-memory service status

install starts the server at login and restarts it if it stops, with your user's service manager:
  Linux   a systemd user unit, ~/.config/systemd/user/${SYSTEMD_UNIT}, enabled and started
          (systemctl --user enable --now); logs: journalctl --user -u entity-memory
  macOS   a LaunchAgent, ~/Library/LaunchAgents/${LAUNCHD_LABEL}.plist, loaded (launchctl
          bootstrap); logs: ~/Library/Logs/entity-memory/server.log
It runs <node> <this package>/bin/entity-memory.js serve --data-dir DIR [--port N], by absolute
paths, with the PATH of the shell you install from (git is found through it). Installing again
rewrites the file (another data dir or port, a moved node) and restarts it. Where the service
manager cannot be reached (no systemd user session: a container, WSL without systemd), the file is
written and install says how to start the server yourself.

uninstall stops the service and removes the file. status says whether it is installed, for which
data dir, what the service manager says, and whether that data dir's server answers.

  --data-dir DIR       the data dir the service serves; default $OPENPROGRAM_HOME, else ~/.openprogram
  --port N             its port; default serve's (4000)
${COMMON_LINES}

Exit status: 0 done; 2 when it could not be done (bad flag, an unsupported system, the service
manager refused or cannot be reached), with what to do on stderr.`;

interface Manager {
  kind: 'systemd' | 'launchd';
  file: string;
}

function manager(): Manager {
  const home = homedir();
  if (process.platform === 'linux') return { kind: 'systemd', file: systemdUnitPath(home, process.env) };
  if (process.platform === 'darwin') return { kind: 'launchd', file: launchdPlistPath(home) };
  throw new CannotRun(`service is for Linux (systemd) and macOS (launchd), not ${process.platform}: start \`entity-memory serve\` at login with your system's own tool`);
}

/** Runs a service manager's command: its output, or why it failed (its stderr's first line, or that it is missing). */
function run(file: string, args: string[]): Promise<{ ok: true; stdout: string } | { ok: false; why: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 30_000, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (!error) return resolve({ ok: true, stdout });
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === 'ENOENT' ? `${file} not found` : (stderr.trim().split('\n')[0] || stdout.trim().split('\n')[0] || error.message.split('\n')[0]!);
      resolve({ ok: false, why });
    });
  });
}

export async function serviceCommand(argv: string[]): Promise<number> {
  if (answeredInfo(argv, () => SERVICE_HELP)) return 0;
  const [action, ...rest] = argv;
  let values: { 'data-dir'?: string; port?: string };
  try {
    values = parseArgs({ args: rest, options: { 'data-dir': { type: 'string' }, port: { type: 'string' } }, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new ConfigError((error as Error).message.split('\n')[0] ?? 'bad arguments');
  }
  if (action === 'install') return install(values);
  if (action !== 'uninstall' && action !== 'status') throw new ConfigError(`service takes install, uninstall or status, got ${JSON.stringify(action ?? '')}`);
  if (values['data-dir'] !== undefined || values.port !== undefined) throw new ConfigError(`service ${action} takes no flags: it reads what install wrote`);
  return action === 'uninstall' ? uninstall() : status();
}

async function install(values: { 'data-dir'?: string; port?: string }): Promise<number> {
  const config = loadConfig([...(values['data-dir'] !== undefined ? ['--data-dir', values['data-dir']] : []), ...(values.port !== undefined ? ['--port', values.port] : [])], process.env);
  const target = manager();
  const spec: ServiceSpec = {
    node: process.execPath,
    script: packageScript('entity-memory.js'),
    dataDir: config.dataDir,
    ...(values.port !== undefined ? { port: config.port } : {}),
    path: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
  };
  mkdirSync(dirname(target.file), { recursive: true });
  const manual = serveArgv(spec).map(shellQuote).join(' ');
  if (target.kind === 'systemd') {
    writeFileSync(target.file, systemdUnit(spec), { mode: 0o600 });
    console.log(`wrote ${target.file}`);
    const reload = await run('systemctl', ['--user', 'daemon-reload']);
    const started = reload.ok ? await run('systemctl', ['--user', 'enable', '--now', SYSTEMD_UNIT]) : reload;
    // Installed again: the running one restarts with what was just written.
    const restarted = started.ok ? await run('systemctl', ['--user', 'restart', SYSTEMD_UNIT]) : started;
    if (!restarted.ok) {
      throw new CannotRun(
        `systemd did not start it (${restarted.why}). Where systemd runs for your user, start it with: systemctl --user daemon-reload && systemctl --user enable --now ${SYSTEMD_UNIT} — or run the server yourself: ${manual}`,
      );
    }
    console.log(`started: systemctl --user status ${SYSTEMD_UNIT}; logs: journalctl --user -u entity-memory; data dir ${spec.dataDir}`);
    return 0;
  }
  const logDir = launchdLogDir(homedir());
  mkdirSync(logDir, { recursive: true });
  writeFileSync(target.file, launchdPlist(spec, logDir), { mode: 0o600 });
  console.log(`wrote ${target.file}`);
  const domain = `gui/${userInfo().uid}`;
  await run('launchctl', ['bootout', `${domain}/${LAUNCHD_LABEL}`]);
  const loaded = await run('launchctl', ['bootstrap', domain, target.file]);
  if (!loaded.ok) throw new CannotRun(`launchd did not load it (${loaded.why}). Load it with: launchctl bootstrap ${domain} '${target.file}' — or run the server yourself: ${manual}`);
  console.log(`started: launchctl print ${domain}/${LAUNCHD_LABEL}; logs: ${logDir}/server.log; data dir ${spec.dataDir}`);
  return 0;
}

async function uninstall(): Promise<number> {
  const target = manager();
  if (!existsSync(target.file)) {
    console.log(`not installed (no ${target.file})`);
    return 0;
  }
  // Stopped first (whatever the manager says: it may not be running), then the file goes.
  if (target.kind === 'systemd') await run('systemctl', ['--user', 'disable', '--now', SYSTEMD_UNIT]);
  else await run('launchctl', ['bootout', `gui/${userInfo().uid}/${LAUNCHD_LABEL}`]);
  rmSync(target.file, { force: true });
  if (target.kind === 'systemd') await run('systemctl', ['--user', 'daemon-reload']);
  console.log(`removed ${target.file}; the server is stopped (start it by hand with entity-memory serve)`);
  return 0;
}

async function status(): Promise<number> {
  for (const line of await serviceStatusLines()) console.log(line);
  return 0;
}

/**
 * How to stop and start the installed service for a moment (a command that needs the data dir to
 * itself, `gc`), when it is installed for `dataDir`; undefined otherwise.
 */
export function serviceStopHint(dataDir: string): string | undefined {
  let target: Manager;
  try {
    target = manager();
  } catch {
    return undefined;
  }
  if (!existsSync(target.file) || installedDataDir(readFileSync(target.file, 'utf8')) !== dataDir) return undefined;
  return target.kind === 'systemd'
    ? `systemctl --user stop ${SYSTEMD_UNIT}, then systemctl --user start ${SYSTEMD_UNIT} after`
    : `launchctl bootout gui/${userInfo().uid}/${LAUNCHD_LABEL}, then launchctl bootstrap gui/${userInfo().uid} '${target.file}' after`;
}

/** What `service status` says, also shown by `hooks status`: installed or not, the manager's word, the server. */
export async function serviceStatusLines(): Promise<string[]> {
  let target: Manager;
  try {
    target = manager();
  } catch (error) {
    return [`service: ${(error as Error).message}`];
  }
  if (!existsSync(target.file)) return [`service: not installed (no ${target.file}; entity-memory service install)`];
  const dataDir = installedDataDir(readFileSync(target.file, 'utf8'));
  const said =
    target.kind === 'systemd'
      ? await run('systemctl', ['--user', 'is-active', SYSTEMD_UNIT])
      : await run('launchctl', ['print', `gui/${userInfo().uid}/${LAUNCHD_LABEL}`]);
  const state = said.ok ? (target.kind === 'systemd' ? said.stdout.trim() : 'loaded') : `unknown (${said.why})`;
  const lines = [`service: installed (${target.file}), data dir ${dataDir ?? '(unreadable)'}, ${target.kind} says ${state}`];
  if (dataDir !== undefined) lines.push(`service: data dir ${dataDir}: ${await serverLine(dataDir)}`);
  return lines;
}
