/**
 * The shape Claude Code's settings.json, Codex's hooks.json and Gemini's settings.json share:
 *
 *   { "hooks": { "<Event>": [ { "matcher"?: "…", "hooks": [ { "type": "command", "command": "…", … } ] } ] } }
 *
 * Our entry for an event is a group of its own holding our one handler; a handler is ours when
 * its command names entity-memory-hook.cjs, or (Claude Code's http hooks) it posts to /hooks/<agent>. Installing leaves exactly our group in each event we
 * hook (replacing one installed before, for another data dir, in place) and none anywhere else;
 * uninstalling removes our handlers and nothing else. Each change is one text edit of the file,
 * made and parsed again until none is left, so the rest of the file stays byte for byte.
 */
import { isDeepStrictEqual } from 'node:util';
import { getNodeValue, type Node } from 'jsonc-parser';
import { isOurCommand, isOurHttpUrl } from './command.js';
import { applyTextEdits, detectStyle, insertChild, property, removeChild, replaceValue, tree, type TextEdit, type TextStyle } from './json-edits.js';
import { locatedError, parseSettings } from './settings-file.js';

/** An event we hook, and the matcher its group carries (tool events), if any. */
export interface HookEventSpec {
  name: string;
  matcher?: string;
}

/** How one agent's file holds our hooks. */
export interface HookGroupsFormat {
  events: readonly HookEventSpec[];
  /** Our handler object for an event, running `command` (or, for Claude Code's http hooks, posting to the server). */
  handler(command: string, event: HookEventSpec): Record<string, unknown>;
}

/** The command our handler runs: one for every event, or one per event (SessionStart's with `--context`). */
export type HookCommandFor = string | ((event: string) => string);

/** Our group for `event`: what install writes there. */
export function ourGroup(format: HookGroupsFormat, event: HookEventSpec, command: HookCommandFor): Record<string, unknown> {
  const line = typeof command === 'string' ? command : command(event.name);
  return { ...(event.matcher === undefined ? {} : { matcher: event.matcher }), hooks: [format.handler(line, event)] };
}

/**
 * What makes a handler ours, as text: its command when it names our hook script, its url when it
 * is an http handler posting to /hooks/<agent>; undefined for anyone else's.
 */
function ourIdentity(handler: Node): string | undefined {
  if (handler.type !== 'object') return undefined;
  const value = (key: string): unknown => {
    const node = valueOf(property(handler, key));
    return node === undefined ? undefined : getNodeValue(node);
  };
  const command = value('command');
  if (isOurCommand(command)) return command;
  const url = value('url');
  return value('type') === 'http' && isOurHttpUrl(url) ? url : undefined;
}

interface OurHandler {
  event: string;
  /** The group node (an element of the event's array). */
  group: Node;
  /** The handler node (an element of the group's `hooks`). */
  handler: Node;
  /** Whether every handler of the group is ours. */
  groupIsOurs: boolean;
  /** Its command, or an http handler's url. */
  command: string;
}

/** A node's value as plain data (jsonc-parser makes objects without a prototype, which deep equality tells apart). */
function plain(node: Node): unknown {
  return JSON.parse(JSON.stringify(getNodeValue(node))) as unknown;
}

function valueOf(prop: Node | undefined): Node | undefined {
  return prop?.children?.[1];
}

/** The `hooks` object of the file, or undefined when there is none. @throws SettingsFileError when it is not an object */
function hooksObject(path: string, text: string, root: Node): Node | undefined {
  const hooks = valueOf(property(root, 'hooks'));
  if (hooks && hooks.type !== 'object') throw locatedError(path, text, hooks.offset, '"hooks" must be an object');
  return hooks;
}

/** Our handlers in one event's array (a value that is not an array holds none). */
function ourHandlers(event: string, array: Node): OurHandler[] {
  if (array.type !== 'array') return [];
  const found: OurHandler[] = [];
  for (const group of array.children ?? []) {
    if (group.type !== 'object') continue;
    const handlers = valueOf(property(group, 'hooks'));
    if (handlers?.type !== 'array') continue;
    const identities = (handlers.children ?? []).map(ourIdentity);
    const groupIsOurs = identities.length > 0 && identities.every((identity) => identity !== undefined);
    (handlers.children ?? []).forEach((handler, index) => {
      const command = identities[index];
      if (command !== undefined) found.push({ event, group, handler, groupIsOurs, command });
    });
  }
  return found;
}

/** Every event property of the hooks object with its array node. */
function events(hooks: Node | undefined): { name: string; prop: Node; value: Node }[] {
  return (hooks?.children ?? []).map((prop) => ({ name: String(prop.children![0]!.value), prop, value: prop.children![1]! }));
}

/** Removes one handler of ours: its whole group when the group is ours alone. */
function removal(text: string, array: Node, found: OurHandler): TextEdit[] {
  if (found.groupIsOurs) return removeChild(text, array, found.group);
  return removeChild(text, valueOf(property(found.group, 'hooks'))!, found.handler);
}

/** The next edit that brings the file closer to having our groups installed, or undefined when it has them. */
function nextInstallEdit(path: string, text: string, style: TextStyle, format: HookGroupsFormat, command: HookCommandFor): TextEdit[] | undefined {
  const root = tree(text);
  const hooks = hooksObject(path, text, root);
  if (!hooks) return insertChild(text, root, 'hooks', Object.fromEntries(format.events.map((event) => [event.name, [ourGroup(format, event, command)]])), style);
  const wanted = new Map(format.events.map((event) => [event.name, event]));
  // Ours in events we no longer hook (installed by another version) go first.
  for (const { name, value } of events(hooks)) {
    if (wanted.has(name)) continue;
    const [first] = ourHandlers(name, value);
    if (first) return removal(text, value, first);
  }
  for (const event of format.events) {
    const group = ourGroup(format, event, command);
    const prop = property(hooks, event.name);
    if (!prop) return insertChild(text, hooks, event.name, [group], style);
    const array = valueOf(prop)!;
    if (array.type !== 'array') throw locatedError(path, text, array.offset, `"hooks"."${event.name}" must be an array`);
    const found = ourHandlers(event.name, array);
    const keeper = found.find((one) => one.groupIsOurs && isDeepStrictEqual(plain(one.group), group));
    if (!keeper) {
      const replaceable = found.find((one) => one.groupIsOurs);
      if (replaceable) return [replaceValue(text, replaceable.group, group, style)];
    }
    const extra = found.find((one) => one !== keeper);
    if (extra) return removal(text, array, extra);
    if (!keeper) return insertChild(text, array, undefined, group, style);
  }
  return undefined;
}

/** Edits applied one at a time, the text parsed again after each, until there is none. */
function settle(text: string, next: (text: string) => TextEdit[] | undefined): string {
  // Each edit adds or removes one of ours; far more than a file could need.
  for (let rounds = 0; rounds < 1000; rounds++) {
    const edits = next(text);
    if (!edits) return text;
    text = applyTextEdits(text, edits);
  }
  throw new Error('installing the hooks did not settle');
}

/**
 * `text` (the file's, undefined when there is none) with our group in each of the format's events.
 * @throws SettingsFileError when the file does not parse or has `hooks` of the wrong shape
 */
export function installHookGroups(path: string, text: string | undefined, format: HookGroupsFormat, command: HookCommandFor): string {
  const parsed = parseSettings(path, text);
  const style = detectStyle(parsed.text);
  return settle(parsed.text, (current) => nextInstallEdit(path, current, style, format, command));
}

/** Whether a container holds nothing, not even a comment. */
function isBare(text: string, container: Node): boolean {
  return (container.children ?? []).length === 0 && /^\s*$/.test(text.slice(container.offset + 1, container.offset + container.length - 1));
}

/**
 * `text` without our handlers; an event whose array this empties goes, and `hooks` if it ends
 * empty (one holding a comment stays). A missing file stays missing (undefined).
 * @throws SettingsFileError when the file does not parse
 */
export function uninstallHookGroups(path: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const parsed = parseSettings(path, text);
  if (text.trim() === '') return text;
  const emptied = new Set<string>();
  return settle(parsed.text, (current) => {
    const root = tree(current);
    const hooks = hooksObject(path, current, root);
    if (!hooks) return undefined;
    for (const { name, value } of events(hooks)) {
      const [first] = ourHandlers(name, value);
      if (first) {
        emptied.add(name);
        return removal(current, value, first);
      }
    }
    for (const { name, prop, value } of events(hooks)) {
      if (emptied.has(name) && value.type === 'array' && isBare(current, value)) return removeChild(current, hooks, prop);
    }
    if (emptied.size > 0 && isBare(current, hooks)) return removeChild(current, root, property(root, 'hooks')!);
    return undefined;
  });
}

/** Our handlers' commands (an http handler's url) in the file, by event (events we do not hook included). */
export function installedCommands(path: string, text: string | undefined): Map<string, string[]> {
  const byEvent = new Map<string, string[]>();
  if (text === undefined) return byEvent;
  const parsed = parseSettings(path, text);
  for (const { name, value } of events(hooksObject(path, parsed.text, parsed.root))) {
    const commands = ourHandlers(name, value).map((found) => found.command);
    if (commands.length > 0) byEvent.set(name, commands);
  }
  return byEvent;
}

/** The value at `path` of keys in the file, if any. */
export function settingValue(text: string, keys: string[]): unknown {
  let node: Node | undefined = tree(text);
  for (const key of keys) node = node?.type === 'object' ? valueOf(property(node, key)) : undefined;
  return node === undefined ? undefined : getNodeValue(node);
}

/**
 * `text` with the setting at `keys` set to `value` (made, with the objects holding it, when
 * missing; replaced when different). Unchanged when it already has that value.
 * @throws SettingsFileError when a key on the way holds something other than an object
 */
export function setSetting(path: string, text: string, keys: string[], value: unknown): string {
  const style = detectStyle(text);
  let node = tree(text);
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    const prop = property(node, key);
    const rest = keys.slice(index + 1);
    const wanted = rest.reduceRight<unknown>((inner, name) => ({ [name]: inner }), value);
    if (!prop) return applyTextEdits(text, insertChild(text, node, key, wanted, style));
    const child = valueOf(prop)!;
    if (rest.length === 0) return isDeepStrictEqual(plain(child), value) ? text : applyTextEdits(text, [replaceValue(text, child, value, style)]);
    if (child.type !== 'object') throw locatedError(path, text, child.offset, `"${keys.slice(0, index + 1).join('.')}" must be an object`);
    node = child;
  }
  return text;
}
