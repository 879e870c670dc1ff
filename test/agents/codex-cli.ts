/**
 * The real Codex CLI for the agent tests: `@openai/codex` at one exact version, installed on first
 * use (pinned-cli.ts). Its `bin/codex.js` (run by the node that runs the tests) starts the native
 * musl binary of `@openai/codex-<platform>` (about 315 MB), an optional dependency.
 */
import { join } from 'node:path';
import { pinnedCli, type CliCommand } from './pinned-cli.js';

/** The version the agent tests were written against (hook payloads, tool names, request shapes). */
export const CODEX_CLI_VERSION = '0.171.0';

/**
 * How to start the Codex CLI, installed on first use.
 * @throws when npm fails (no registry), or the installed CLI does not run here.
 */
export function codexCli(): Promise<CliCommand> {
  return pinnedCli({
    package: '@openai/codex',
    version: CODEX_CLI_VERSION,
    name: 'codex-cli',
    binary: (dir) => join(dir, 'node_modules', '@openai/codex', 'bin', 'codex.js'),
    node: true,
  });
}
