/**
 * The server as a service of the user's login (`entity-memory service`): what is written for
 * systemd (a user unit, logs in the journal: `journalctl --user -u entity-memory`) and for launchd
 * (a LaunchAgent, logs in ~/Library/Logs/entity-memory/), and where. Pure text: src/cli/service.ts
 * writes the files and runs systemctl or launchctl.
 */
import { join } from 'node:path';

export const SYSTEMD_UNIT = 'entity-memory.service';
export const LAUNCHD_LABEL = 'dev.entity-memory.server';

/** What the service runs: `node script serve --data-dir DIR [--port N]`, with this PATH (git is found through it). */
export interface ServiceSpec {
  node: string;
  script: string;
  dataDir: string;
  port?: number;
  path: string;
}

export function serveArgv(spec: ServiceSpec): string[] {
  return [spec.node, spec.script, 'serve', '--data-dir', spec.dataDir, ...(spec.port !== undefined ? ['--port', String(spec.port)] : [])];
}

/** ~/.config/systemd/user/entity-memory.service ($XDG_CONFIG_HOME when set). */
export function systemdUnitPath(home: string, env: NodeJS.ProcessEnv): string {
  const config = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(home, '.config');
  return join(config, 'systemd', 'user', SYSTEMD_UNIT);
}

export function launchdPlistPath(home: string): string {
  return join(home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
}

export function launchdLogDir(home: string): string {
  return join(home, 'Library', 'Logs', 'entity-memory');
}

/**
 * One word of a unit's command line or Environment= as systemd reads it (systemd.syntax(7),
 * systemd.service(5)): quoted when it holds anything but plain characters, `\` and `"` escaped
 * inside; `%` doubled (specifiers) and `$` doubled (variables) in any case.
 */
export function systemdWord(word: string): string {
  const literal = word.replace(/%/g, '%%').replace(/\$/g, '$$$$');
  if (/^[A-Za-z0-9_/.:,=@+-]+$/.test(literal)) return literal;
  return `"${literal.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

export function systemdUnit(spec: ServiceSpec): string {
  return [
    '# Written by `entity-memory service install`; removed by `entity-memory service uninstall`.',
    '[Unit]',
    'Description=entity-memory: what your coding agents did, kept in git',
    'After=network.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${serveArgv(spec).map(systemdWord).join(' ')}`,
    `Environment=${systemdWord(`PATH=${spec.path}`)}`,
    // Its own stop: SIGTERM, the server closes the database and the repos.
    'Restart=on-failure',
    'RestartSec=2',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

export function launchdPlist(spec: ServiceSpec, logDir: string): string {
  const strings = (items: string[]) => items.map((item) => `    <string>${xml(item)}</string>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by entity-memory service install; removed by entity-memory service uninstall. -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${LAUNCHD_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
${strings(serveArgv(spec))}
  </array>
  <key>EnvironmentVariables</key>
  <dict>
    <key>PATH</key>
    <string>${xml(spec.path)}</string>
  </dict>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>StandardOutPath</key>
  <string>${xml(join(logDir, 'server.log'))}</string>
  <key>StandardErrorPath</key>
  <string>${xml(join(logDir, 'server.log'))}</string>
</dict>
</plist>
`;
}

/** The data dir an installed unit or plist names (its `--data-dir`), or undefined when it names none readable. */
export function installedDataDir(text: string): string | undefined {
  const plist = /<string>--data-dir<\/string>\s*<string>([^<]*)<\/string>/.exec(text);
  if (plist) return plist[1]!.replace(/&apos;/g, "'").replace(/&quot;/g, '"').replace(/&gt;/g, '>').replace(/&lt;/g, '<').replace(/&amp;/g, '&');
  const exec = /^ExecStart=(.*)$/m.exec(text);
  if (!exec) return undefined;
  const words = systemdWords(exec[1]!);
  const at = words.indexOf('--data-dir');
  return at >= 0 ? words[at + 1] : undefined;
}

/** A command line as systemd splits it (the inverse of systemdWord). */
function systemdWords(line: string): string[] {
  const words: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (let match = pattern.exec(line); match; match = pattern.exec(line)) {
    const word = match[1] !== undefined ? match[1].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c)) : match[2]!;
    words.push(word.replace(/%%/g, '%').replace(/\$\$/g, '$'));
  }
  return words;
}
