/**
 * One `codex exec` run of the real Codex CLI in a repo, offline: its model is the scripted one
 * (scripted-codex.ts), a provider of the config.toml in a CODEX_HOME of the test's; its
 * environment only what is given here (as `env -i` would), its HOME a folder of the test's, so no
 * configuration of this machine is read or written. The hooks it runs are those of the repo's
 * .codex/hooks.json (install-hooks.ts: our `hooks install codex`, which needs `[features] hooks`
 * in the same config.toml), run without Codex's review of new hooks
 * (`--dangerously-bypass-hook-trust`).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CliCommand } from './pinned-cli.js';

export interface CodexRunOptions {
  /** How to start the Codex CLI (codex-cli.ts). */
  cli: CliCommand;
  /** The repo the agent works in (its cwd). */
  repo: string;
  /** The agent's HOME; its CODEX_HOME is `<home>/.codex` (codexHome), the same folder for a resume. */
  home: string;
  prompt: string;
  /** Resume the last session (`codex exec resume --last`): its SessionStart says `resume`. Default false. */
  resume?: boolean;
  /** A backstop: the run is killed after this long (default 120 s) and its result says so. */
  timeoutMs?: number;
}

export interface CodexRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The JSONL events of stdout (thread.started, turn.started, item.started/completed, turn.completed). */
  messages: { type: string; thread_id?: string; item?: { type: string; text?: string; status?: string } }[];
  /** The session (thread) id Codex gave the run. */
  sessionId: string | undefined;
  ms: number;
}

export function codexHome(home: string): string {
  return join(home, '.codex');
}

/**
 * Writes `<home>/.codex/config.toml`: the scripted model as the provider (no retries), no update
 * check, no analytics, hooks on, the repo trusted. Written before `hooks install codex`, which
 * finds `[features] hooks` on and keeps it.
 */
export function writeCodexConfig(home: string, repo: string, modelUrl: string): void {
  mkdirSync(codexHome(home), { recursive: true });
  const config = [
    'model = "gpt-5.5"',
    'model_provider = "scripted"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.scripted]',
    'name = "scripted"',
    `base_url = ${JSON.stringify(modelUrl)}`,
    'env_key = "SCRIPTED_OPENAI_API_KEY"',
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[features]',
    'hooks = true',
    '',
    '[analytics]',
    'enabled = false',
    '',
    `[projects.${JSON.stringify(repo)}]`,
    'trust_level = "trusted"',
    '',
  ];
  writeFileSync(join(codexHome(home), 'config.toml'), config.join('\n'));
}

/** The CLI's environment: nothing from this machine but a PATH with node, git and a shell; a dummy key only. */
function environment(options: CodexRunOptions): Record<string, string> {
  return {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: options.home,
    CODEX_HOME: codexHome(options.home),
    TERM: 'dumb',
    LANG: 'C.UTF-8',
    SCRIPTED_OPENAI_API_KEY: 'sk-dummy-scripted-model',
    // git in a command step reads no configuration of this machine.
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
  };
}

export function codexArgs(options: Pick<CodexRunOptions, 'prompt' | 'resume'>): string[] {
  const trust = ['-c', 'approval_policy="never"', '--dangerously-bypass-hook-trust'];
  if (options.resume) return ['exec', 'resume', '--last', '--json', '-c', 'sandbox_mode="workspace-write"', ...trust, options.prompt];
  return ['exec', '--json', '--sandbox', 'workspace-write', ...trust, options.prompt];
}

function parseLines(stdout: string): CodexRun['messages'] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as CodexRun['messages'][number]];
      } catch {
        return [];
      }
    });
}

/** Runs one prompt to the CLI's exit (its hooks have all run by then: the CLI waits on each); stdin is closed, or Codex waits for more. */
export function runCodex(options: CodexRunOptions): Promise<CodexRun> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(options.cli.command, [...options.cli.args, ...codexArgs(options)], { cwd: options.repo, env: environment(options), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const backstop = setTimeout(() => {
      stderr += `\n[run-codex] killed after ${timeoutMs} ms`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(backstop);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(backstop);
      const messages = parseLines(stdout);
      resolve({ code, signal, stdout, stderr, messages, sessionId: messages.find((m) => m.type === 'thread.started')?.thread_id, ms: Date.now() - started });
    });
  });
}
