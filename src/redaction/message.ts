/**
 * A message's stored fields without their secrets: its content (as JSON string by string when
 * it is JSON, else as text) and its metadata (JSON text), with what was taken out of both.
 */
import { redactJsonText, redactText, sumCounts, type RedactionCounts } from './secrets.js';

export interface RedactedFields {
  content: string;
  metadata: string | null;
  /** What was taken out, as stored: JSON `{"<kind>": count}`, or null when nothing was. */
  redactions: string | null;
}

function isJson(text: string): boolean {
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export async function redactMessageFields(content: string, metadata: string | null): Promise<RedactedFields> {
  const body = isJson(content) ? await redactJsonText(content) : await redactText(content);
  const meta = metadata === null ? null : await redactJsonText(metadata);
  return { content: body.text, metadata: meta?.text ?? null, redactions: storedCounts(sumCounts({ ...body.counts }, meta?.counts ?? {})) };
}

/** Stored redaction counts read back; {} for none or anything unreadable. */
export function parseRedactions(stored: string | null): RedactionCounts {
  if (stored === null) return {};
  try {
    const value = JSON.parse(stored) as unknown;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
    return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, number] => typeof entry[1] === 'number'));
  } catch {
    return {};
  }
}

/** The markers redaction left in stored text, counted by kind. */
export function markerCounts(text: string): RedactionCounts {
  const counts: RedactionCounts = {};
  for (const match of text.matchAll(/\[redacted:([a-z0-9-]+)\]/g)) counts[match[1]!] = (counts[match[1]!] ?? 0) + 1;
  return counts;
}

/** Counts as stored: JSON, or null for none. */
function storedCounts(counts: RedactionCounts): string | null {
  return Object.keys(counts).length === 0 ? null : JSON.stringify(counts);
}

/** Stored redactions (JSON or null) and more counts, together as stored (null for none). */
export function mergeCounts(stored: string | null, more: RedactionCounts): string | null {
  return storedCounts(sumCounts(parseRedactions(stored), more));
}
