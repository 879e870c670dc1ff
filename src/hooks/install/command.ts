/**
 * The command line an installed hook runs, and how an installed one is recognised and read back.
 *
 * It names node and the hook script by absolute path, and the data dir, so it runs the same in
 * whatever environment the agent gives its hooks (no PATH, no HOME: see the tests). The agents
 * run it with `sh -c`, so every word is quoted for a POSIX shell.
 */
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../package-root.js';

/** The script an installed hook runs (bin/). */
export const HOOK_SCRIPT_NAME = 'entity-memory-hook.cjs';
/** The script hooks installed before it named (it still runs the new one). */
export const OLDER_HOOK_SCRIPT_NAME = 'entity-memory-hook.js';
const SCRIPT_NAMES = [HOOK_SCRIPT_NAME, OLDER_HOOK_SCRIPT_NAME];
/** The stdio MCP relay (bin/). */
export const MCP_SCRIPT_NAME = 'entity-memory-mcp.cjs';

/** What an installed hook command runs. */
export interface HookCommand {
  /** Absolute path of node. */
  node: string;
  /** Absolute path of bin/entity-memory-hook.cjs (or, installed earlier, .js). */
  script: string;
  agent: string;
  /** Absolute path of the data dir whose server records the events. */
  dataDir: string;
  /** SessionStart's, installed with --context: its answer gives the agent the project's recent sessions. */
  context?: boolean;
}

/** `word` as one word for a POSIX shell: bare when it is plain, else in single quotes. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

export function hookCommandLine(command: HookCommand): string {
  return [command.node, command.script, command.agent, '--data-dir', command.dataDir, ...(command.context ? ['--context'] : [])].map(shellQuote).join(' ');
}

/** The path an http hook of ours posts to (POST /hooks/<agent>, src/http/hooks-route.ts). */
const OUR_HTTP_PATH = /\/hooks\/(claude-code|codex|gemini)$/;

/** The URL of an http hook handler of ours (type "http", its url ending in /hooks/<agent>). */
export function isOurHttpUrl(url: unknown): url is string {
  if (typeof url !== 'string') return false;
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && OUR_HTTP_PATH.test(parsed.pathname);
  } catch {
    return false;
  }
}

/** What marks a hook command as ours: install replaces it, uninstall removes it. */
export function isOurCommand(command: unknown): command is string {
  return typeof command === 'string' && SCRIPT_NAMES.some((name) => command.includes(name));
}

/** The words of a POSIX shell command line (quotes and backslashes; no expansions), or undefined when it is not that simple. */
export function shellWords(line: string): string[] | undefined {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return undefined;
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      let text = '';
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) i++;
        text += line[i];
      }
      if (i >= line.length) return undefined;
      word = (word ?? '') + text;
    } else if (c === '\\') {
      if (i + 1 >= line.length) return undefined;
      word = (word ?? '') + line[++i];
    } else if ('$`;&|<>()'.includes(c)) {
      return undefined;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** An installed command read back, or undefined when it is ours but not in the form install writes. */
export function parseHookCommandLine(line: string): HookCommand | undefined {
  const words = shellWords(line);
  const context = words?.length === 6 && words[5] === '--context';
  if (!words || (words.length !== 5 && !context) || words[3] !== '--data-dir' || !SCRIPT_NAMES.some((name) => words[1]!.endsWith(name))) return undefined;
  return { node: words[0]!, script: words[1]!, agent: words[2]!, dataDir: words[4]!, ...(context ? { context } : {}) };
}

/** A script of this package's bin/, by its real path: what an agent's settings name. */
export function packageScript(name: string): string {
  const script = join(PACKAGE_ROOT, 'bin', name);
  return existsSync(script) ? realpathSync(script) : script;
}

/** This package's hook script: what an installed hook runs. */
export function hookScript(): string {
  return packageScript(HOOK_SCRIPT_NAME);
}

/** This package's stdio MCP relay: what install registers as the agent's MCP server, and `entity-memory mcp` runs. */
export function mcpScript(): string {
  return packageScript(MCP_SCRIPT_NAME);
}
