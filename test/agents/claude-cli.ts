/**
 * The real Claude Code CLI for the agent tests: `@anthropic-ai/claude-code` at one exact version,
 * installed on first use (pinned-cli.ts).
 *
 * Claude Code 2.x is a native binary: the package pulls `@anthropic-ai/claude-code-<platform>`
 * (about 245 MB) as an optional dependency, and its postinstall hard-links it over
 * `bin/claude.exe`. When install scripts did not run (npm's allow-scripts, `--ignore-scripts`),
 * the postinstall (`install.cjs`) is run here.
 */
import { join } from 'node:path';
import { pinnedCli, run, type PinnedCli } from './pinned-cli.js';

/** The version the agent tests were written against (hook payloads, tool names, request shapes). */
export const CLAUDE_CODE_VERSION = '2.1.197';

const CLAUDE_CODE: PinnedCli = {
  package: '@anthropic-ai/claude-code',
  version: CLAUDE_CODE_VERSION,
  name: 'claude-code',
  binary: (dir) => join(dir, 'node_modules', '@anthropic-ai/claude-code', 'bin', 'claude.exe'),
  repair: (dir, env) => run(process.execPath, [join(dir, 'node_modules', '@anthropic-ai/claude-code', 'install.cjs')], dir, env),
};

/**
 * The path of the Claude Code binary, installed on first use.
 * @throws when npm fails (no registry), or the installed binary does not run here.
 */
export async function claudeCodeBinary(): Promise<string> {
  return (await pinnedCli(CLAUDE_CODE)).command;
}
