/**
 * git's ref-name rules (`git check-ref-format`, refs.c `check_refname_format`)
 * as a pure function, so a name can be checked on every request without a git
 * process. Checked against the real `git check-ref-format` in
 * test/git/ref-format.test.ts.
 *
 * The rules, in the order git scans a name (left to right, component by
 * component; the first problem found is the one reported):
 * - no ASCII control character (below 0x20, or DEL), space, `~ ^ : ? * [ \`;
 * - no `..` and no `@{`;
 * - no empty component (so no leading or trailing `/`, no `//`);
 * - no component that starts with `.` or ends with `.lock`;
 * - the whole name does not end with `.` and is not `@`;
 * - at least two components (`refs/...`) unless `allowOneLevel`.
 * Characters beyond ASCII are allowed, as git allows any byte from 0x80 up.
 * `*` is refused always (git accepts one only in `--refspec-pattern` mode).
 */

export type RefFormatRule =
  | 'empty'
  | 'at-sign'
  | 'forbidden-character'
  | 'double-dot'
  | 'at-brace'
  | 'empty-component'
  | 'leading-dot'
  | 'lock-suffix'
  | 'trailing-dot'
  | 'one-level';

export interface RefFormatProblem {
  rule: RefFormatRule;
  /** Says what is wrong in words a person can act on, e.g. `contains ".."`. */
  message: string;
}

export interface RefFormatOptions {
  /** Accept a name of one component (`main`), like `--allow-onelevel`. Default false. */
  allowOneLevel?: boolean;
}

const LOCK_SUFFIX = '.lock';

/** The characters git refuses anywhere in a ref name (refs.c `refname_disposition` 4, plus `*`). */
function isForbidden(code: number): boolean {
  return (
    code < 0x20 ||
    code === 0x7f ||
    code === 0x20 || // space
    code === 0x7e || // ~
    code === 0x5e || // ^
    code === 0x3a || // :
    code === 0x3f || // ?
    code === 0x2a || // *
    code === 0x5b || // [
    code === 0x5c // \
  );
}

function describe(code: number): string {
  if (code < 0x20 || code === 0x7f) return `the control character U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  if (code === 0x20) return 'a space';
  return JSON.stringify(String.fromCharCode(code));
}

/**
 * The first rule `name` breaks, or null when git accepts it as a ref name.
 * Never throws.
 */
export function refFormatProblem(name: string, options: RefFormatOptions = {}): RefFormatProblem | null {
  if (name === '') return { rule: 'empty', message: 'is empty' };
  if (name === '@') return { rule: 'at-sign', message: 'is "@", which git reads as HEAD' };
  let components = 0;
  let start = 0;
  for (;;) {
    // One component: from `start` up to the next '/' or the end.
    let last = '';
    let i = start;
    for (; i < name.length && name[i] !== '/'; i++) {
      const ch = name[i]!;
      const code = name.charCodeAt(i);
      if (isForbidden(code)) return { rule: 'forbidden-character', message: `contains ${describe(code)}` };
      if (ch === '.' && last === '.') return { rule: 'double-dot', message: 'contains ".."' };
      if (ch === '{' && last === '@') return { rule: 'at-brace', message: 'contains "@{"' };
      last = ch;
    }
    const component = name.slice(start, i);
    if (component === '') {
      return { rule: 'empty-component', message: 'has an empty part (a leading or trailing "/", or "//")' };
    }
    if (component.startsWith('.')) {
      return { rule: 'leading-dot', message: `has a part starting with "." (${JSON.stringify(component)})` };
    }
    if (component.endsWith(LOCK_SUFFIX)) {
      return { rule: 'lock-suffix', message: `has a part ending in ".lock" (${JSON.stringify(component)})` };
    }
    components += 1;
    if (i === name.length) break;
    start = i + 1;
  }
  if (name.endsWith('.')) return { rule: 'trailing-dot', message: 'ends with "."' };
  if (!options.allowOneLevel && components < 2) {
    return { rule: 'one-level', message: 'has one part only (a full ref name looks like "refs/heads/main")' };
  }
  return null;
}
