/**
 * One `gemini -p` run of the real Gemini CLI in a repo, offline: its model is the scripted one
 * (scripted-gemini.ts), its environment only what is given here (as `env -i` would), its HOME a
 * folder of the test's with the user settings it needs (API-key auth, no telemetry, no updates),
 * so no configuration of this machine is read or written. The hooks it runs are those of the
 * repo's .gemini/settings.json (install-hooks.ts: our `hooks install gemini`).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CliCommand } from './pinned-cli.js';

export interface GeminiRunOptions {
  /** How to start the Gemini CLI (gemini-cli.ts). */
  cli: CliCommand;
  /** The repo the agent works in (its cwd). */
  repo: string;
  /** The agent's HOME: its settings, transcripts and state; the same folder for a `--resume`. */
  home: string;
  /** The scripted model's URL. */
  modelUrl: string;
  prompt: string;
  /** Resume the project's latest session (`--resume latest`): its SessionStart says `resume`. Default false. */
  resume?: boolean;
  /** A backstop: the run is killed after this long (default 120 s) and its result says so. */
  timeoutMs?: number;
}

export interface GeminiRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The stream-json lines of stdout (init, message, tool_use, tool_result, result). */
  messages: { type: string; session_id?: string; role?: string; content?: string; status?: string }[];
  /** The session id the CLI gave the run (from its init line). */
  sessionId: string | undefined;
  ms: number;
}

/** ~/.gemini/settings.json: API-key auth without a trust prompt, nothing sent anywhere, no update checks. */
const USER_SETTINGS = {
  security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  ide: { enabled: false },
};

/** The CLI's environment: nothing from this machine but a PATH with node, git and a shell; a dummy key only. */
function environment(options: GeminiRunOptions): Record<string, string> {
  return {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: options.home,
    TERM: 'dumb',
    LANG: 'C.UTF-8',
    GEMINI_API_KEY: 'dummy-scripted-model',
    GOOGLE_GEMINI_BASE_URL: options.modelUrl,
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    GEMINI_TELEMETRY_ENABLED: 'false',
    NO_BROWSER: 'true',
    // git in a shell step reads no configuration of this machine.
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  };
}

function parseLines(stdout: string): GeminiRun['messages'] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as GeminiRun['messages'][number]];
      } catch {
        return [];
      }
    });
}

/** Runs one prompt to the CLI's exit (its hooks have all run by then: the CLI waits on each). */
export function runGemini(options: GeminiRunOptions): Promise<GeminiRun> {
  mkdirSync(join(options.home, '.gemini'), { recursive: true });
  writeFileSync(join(options.home, '.gemini', 'settings.json'), `${JSON.stringify(USER_SETTINGS, null, 2)}\n`);
  const args = [...options.cli.args, '-p', options.prompt, '--output-format', 'stream-json', '--yolo', ...(options.resume ? ['--resume', 'latest'] : [])];
  const timeoutMs = options.timeoutMs ?? 120_000;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(options.cli.command, args, { cwd: options.repo, env: environment(options), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const backstop = setTimeout(() => {
      stderr += `\n[run-gemini] killed after ${timeoutMs} ms`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(backstop);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(backstop);
      const messages = parseLines(stdout);
      resolve({ code, signal, stdout, stderr, messages, sessionId: messages.find((m) => m.type === 'init')?.session_id, ms: Date.now() - started });
    });
  });
}
