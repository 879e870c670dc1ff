/**
 * What the server took out of a turn's messages before storing them (issue 26: secrets never
 * stored), said in one line: "2 secrets redacted before storing: aws-access-key, github-token ×1".
 * Kinds and counts only; the values were never kept.
 */
export interface RedactedMessage {
  redactions: readonly { kind: string; count: number }[];
}

/** The line for a turn's messages, or null when nothing was redacted. */
export function redactionSummary(messages: readonly RedactedMessage[]): string | null {
  const counts = new Map<string, number>();
  for (const message of messages) for (const { kind, count } of message.redactions) counts.set(kind, (counts.get(kind) ?? 0) + count);
  if (counts.size === 0) return null;
  const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
  const kinds = [...counts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, count]) => (count > 1 ? `${kind} ×${count}` : kind))
    .join(', ');
  return `${total} ${total === 1 ? 'secret' : 'secrets'} redacted before storing: ${kinds}`;
}
