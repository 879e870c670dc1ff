/**
 * Where a message lives in its session repo (the on-disk contract):
 * messages/<bucket>/<seq, 6 digits>-<role initial>-<message id>.json, with
 * bucket = floor(seq / 1000) padded to 3 digits, so no folder's tree object
 * grows past 1,000 entries.
 */
export function messagePath(seq: number, role: string, messageId: string): string {
  const bucket = String(Math.floor(seq / 1000)).padStart(3, '0');
  const initial = role.charAt(0).toLowerCase();
  return `messages/${bucket}/${String(seq).padStart(6, '0')}-${initial}-${messageId}.json`;
}
