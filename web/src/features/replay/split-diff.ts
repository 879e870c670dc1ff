/**
 * A unified patch as side-by-side rows (the split view of "Code changes"): the old file's lines on
 * the left, the new file's on the right, context on both, each block of removed lines paired with
 * the added lines that replace it, line numbers from the hunk headers. Pure: no React.
 */

export interface SplitCell {
  /** The line's number in its file (null for a hunk header). */
  number: number | null;
  text: string;
  kind: 'ctx' | 'del' | 'add' | 'hunk';
}

/** One row of the split view: a side is null where that file has no line facing the other's. */
export interface SplitRow {
  left: SplitCell | null;
  right: SplitCell | null;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;
const FILE_HEADER = /^(diff --git |index |--- |\+\+\+ |new file mode |deleted file mode |old mode |new mode |similarity index |rename from |rename to |Binary files )/;

export function splitRows(patch: string): SplitRow[] {
  const rows: SplitRow[] = [];
  let oldNumber = 0;
  let newNumber = 0;
  let inHunk = false;
  let removed: SplitCell[] = [];
  let added: SplitCell[] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(removed.length, added.length); i++) rows.push({ left: removed[i] ?? null, right: added[i] ?? null });
    removed = [];
    added = [];
  };
  for (const line of patch.split('\n')) {
    const hunk = HUNK.exec(line);
    if (hunk) {
      flush();
      oldNumber = Number(hunk[1]);
      newNumber = Number(hunk[2]);
      inHunk = true;
      const header: SplitCell = { number: null, text: line, kind: 'hunk' };
      rows.push({ left: header, right: header });
      continue;
    }
    if (!inHunk) {
      if (FILE_HEADER.test(line) || line === '') continue;
    }
    if (line.startsWith('\\')) continue; // "\ No newline at end of file"
    if (line.startsWith('-')) removed.push({ number: oldNumber++, text: line.slice(1), kind: 'del' });
    else if (line.startsWith('+')) added.push({ number: newNumber++, text: line.slice(1), kind: 'add' });
    else if (line.startsWith(' ') || (inHunk && line === '')) {
      flush();
      const text = line.slice(1);
      rows.push({ left: { number: oldNumber++, text, kind: 'ctx' }, right: { number: newNumber++, text, kind: 'ctx' } });
    } else if (FILE_HEADER.test(line)) {
      flush();
      inHunk = false;
    }
  }
  flush();
  // A trailing empty line of the patch text is not a context line.
  const last = rows.at(-1);
  if (last?.left?.kind === 'ctx' && last.left.text === '' && last.right?.text === '' && patch.endsWith('\n')) rows.pop();
  return rows;
}
