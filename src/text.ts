/**
 * Text folded to fit on one line of a commit message. A shared leaf: both the
 * session mirror (turn commits) and the project committer (the agent's commit
 * in a user's folder) write such lines, and neither may import the other.
 */

/**
 * Control characters but tab: C0, DEL and C1. `git commit-tree` refuses a
 * message with a NUL, and `git fast-import` stores one but `git log` and the
 * trailer parser then stop reading at it (the trailers are lost); the others
 * reach the terminal of whoever runs `git log` (an ESC starts an escape sequence).
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * First `max` characters (code points, never half a surrogate pair), newlines
 * folded to spaces and other control characters but tab to U+FFFD, so any
 * content makes a message git accepts; the message files keep the content as
 * it is. U+FFFD rather than a space: it shows that something unprintable was
 * there, where a space would pass for the content's own, and it is never
 * trimmed away as trailing whitespace.
 */
export function excerpt(text: string, max: number): string {
  return Array.from(oneLine(text)).slice(0, max).join('').trimEnd();
}

/** Newlines folded to spaces, other control characters but tab to U+FFFD: text that stays on its line of a commit message. */
export function oneLine(text: string): string {
  return text.replace(/\r\n|\r|\n/g, ' ').replace(CONTROL, '\uFFFD');
}
