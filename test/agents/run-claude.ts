/**
 * One `claude -p` run of the real Claude Code CLI in a repo, offline: its model is the scripted
 * one (scripted-model.ts), its environment only what is given here (as `env -i` would), its HOME a
 * folder of the test's, so no configuration of this machine is read or written. The hooks it runs
 * are those of the repo's .claude/settings.json (installClaudeHooks: our `hooks install`).
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { installHooks } from './install-hooks.js';

/**
 * Installs entity-memory's hooks in `repo`/.claude/settings.json, sending to the server of
 * `dataDir` (install-hooks.ts); `flags`: install's own (`--http`: Claude Code posts the events itself).
 * @returns the settings file's path.
 */
export function installClaudeHooks(repo: string, dataDir: string, flags: string[] = []): Promise<string> {
  return installHooks('claude-code', repo, dataDir, {}, flags);
}

export interface ClaudeRunOptions {
  /** The Claude Code binary (claude-cli.ts). */
  binary: string;
  /** The repo the agent works in (its cwd). */
  repo: string;
  /** The agent's HOME: its transcripts and state; the same folder for a `--continue`. */
  home: string;
  /** The scripted model's URL. */
  modelUrl: string;
  prompt: string;
  /** Continue the repo's last session (`--continue`): its SessionStart says `resume`. Default false. */
  resume?: boolean;
  /** A backstop: the run is killed after this long (default 120 s) and its result says so. */
  timeoutMs?: number;
  /** More tools to allow without asking (e.g. an MCP server's: mcp__entity-memory). */
  allowedTools?: string[];
}

export interface ClaudeRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The stream-json lines of stdout (system, assistant, user, result). */
  messages: { type: string; subtype?: string; session_id?: string; result?: string; is_error?: boolean }[];
  /** The session id Claude Code gave the run (from its init message). */
  sessionId: string | undefined;
  ms: number;
}

/** The CLI's environment: nothing from this machine but a PATH with node, git and a shell; dummy keys only. */
function environment(options: ClaudeRunOptions): Record<string, string> {
  return {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: options.home,
    TERM: 'dumb',
    LANG: 'C.UTF-8',
    ANTHROPIC_BASE_URL: options.modelUrl,
    ANTHROPIC_API_KEY: 'sk-ant-dummy-scripted-model',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    // git in a Bash step reads no configuration of this machine.
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  };
}

export function claudeArgs(options: Pick<ClaudeRunOptions, 'prompt' | 'resume' | 'allowedTools'>): string[] {
  return [
    '-p',
    options.prompt,
    '--output-format',
    'stream-json',
    '--verbose',
    // --dangerously-skip-permissions refuses to run as root (CI containers): accept edits, allow the rest by name.
    '--permission-mode',
    'acceptEdits',
    '--allowedTools',
    'Bash',
    'Task',
    'Agent',
    'Write',
    'Edit',
    'MultiEdit',
    'Read',
    ...(options.allowedTools ?? []),
    ...(options.resume ? ['--continue'] : []),
  ];
}

function parseLines(stdout: string): ClaudeRun['messages'] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as ClaudeRun['messages'][number]];
      } catch {
        return [];
      }
    });
}

/** Runs one prompt to the CLI's exit (its hooks have all run by then: the CLI waits on each). */
export function runClaude(options: ClaudeRunOptions): Promise<ClaudeRun> {
  mkdirSync(options.home, { recursive: true });
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(options.binary, claudeArgs(options), { cwd: options.repo, env: environment(options), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const backstop = setTimeout(() => {
      stderr += `\n[run-claude] killed after ${options.timeoutMs ?? 120_000} ms`;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 120_000);
    child.on('error', (error) => {
      clearTimeout(backstop);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(backstop);
      const messages = parseLines(stdout);
      const init = messages.find((m) => m.type === 'system' && m.subtype === 'init');
      resolve({ code, signal, stdout, stderr, messages, sessionId: init?.session_id, ms: Date.now() - started });
    });
  });
}
