/**
 * The real Gemini CLI for the agent tests: `@google/gemini-cli` at one exact version, installed on
 * first use (pinned-cli.ts). It is a JavaScript bundle (node 20 or later), run by the node that
 * runs the tests; the install scripts of its optional native parts (node-pty, keytar) do not
 * matter for `-p`.
 */
import { join } from 'node:path';
import { pinnedCli, type CliCommand } from './pinned-cli.js';

/** The version the agent tests were written against (hook payloads, tool names, request shapes). */
export const GEMINI_CLI_VERSION = '0.61.0';

/**
 * How to start the Gemini CLI, installed on first use.
 * @throws when npm fails (no registry), or the installed CLI does not run here.
 */
export function geminiCli(): Promise<CliCommand> {
  return pinnedCli({
    package: '@google/gemini-cli',
    version: GEMINI_CLI_VERSION,
    name: 'gemini-cli',
    binary: (dir) => join(dir, 'node_modules', '@google/gemini-cli', 'bundle', 'gemini.js'),
    node: true,
  });
}
