/**
 * Finding secrets in text, and taking them out: what every message goes through before it is
 * stored (src/redaction/message.ts, through src/services/sessions/redact-drafts.ts).
 *
 * Three detectors:
 * - secretlint's recommended preset (@secretlint/core, maintained, one rule per provider: AWS,
 *   GitHub, GitLab, Slack, OpenAI, Anthropic, Hugging Face, private keys, database URLs with a
 *   password, npm, Docker, GCP, …), with AWS access key ids turned on (the preset leaves them
 *   off for source files; in an agent's transcript an id beside its secret is half the pair).
 *   Pinned to 12.0.0, the newest release that runs on every Node version `engines` names
 *   (12.1 and later require Node 22);
 * - the prefixed key formats of the providers whose rules came after it (PROVIDER_KEYS: Stripe,
 *   Cloudflare, Tailscale), as each provider documents them;
 * - a generic rule for what no provider rule knows: a long random-looking value assigned to a
 *   name that says it is secret (`API_KEY=…`, `"client_secret": "…"`, `password: …`) or sent
 *   as `Bearer …`. A random value alone is not enough (git shas, hashes in lockfiles, UUIDs and
 *   base64 data are random too): it must be named so, hold letters and digits, and look random
 *   (Shannon entropy ≥ 3.5 bits per character).
 *
 * A secret is replaced by `[redacted:<kind>]` (`[redacted:github-token]`), the kind named after
 * the rule's message, never its value.
 */
import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { creator as recommendedPreset } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintCoreConfig } from '@secretlint/types';

// secretlint profiles every scan: a performance mark per rule per scan, each kept by its profiler
// (and in the process's performance timeline) for good, and in 12.0.0 every kept mark searched
// again at each new one. In a server that scans every message that is a leak (40,000 scans: 2.5
// million marks, +480 MB of heap) and a slowdown (recordTurn with redaction 3.5x without it, and
// growing, bench/redaction.ts). 12.0.0's profiler has no switch (13's setEnabled): its marks are
// made no-ops, so it neither keeps nor measures anything; the scans themselves are unchanged.
const profiler = secretLintProfiler as unknown as { setEnabled?: (enabled: boolean) => void; mark: (marker: unknown) => void };
if (typeof profiler.setEnabled === 'function') profiler.setEnabled(false);
else profiler.mark = () => {};

/** A secret's place in the text: `[start, end)` in UTF-16 code units. */
export interface SecretFinding {
  kind: string;
  start: number;
  end: number;
}

const SECRETLINT_CONFIG: SecretLintCoreConfig = {
  rules: [
    {
      id: '@secretlint/secretlint-rule-preset-recommend',
      rule: recommendedPreset,
      rules: [{ id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } }],
    },
  ],
};

/** `GITHUB_TOKEN`, `AWSAccessKeyID`, `PostgreSQLConnection` → `github-token`, `aws-access-key-id`, `postgresql-connection`. */
export function kindOf(messageId: string): string {
  return messageId
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .replace(/[_\s]+/g, '-')
    .toLowerCase();
}

/** Characters a token is made of: a rule's range that stops inside one is carried to its end. */
const TOKEN_CHAR = /[A-Za-z0-9+/=_\-.~]/;

/** A name that says its value is secret, its connector, and a long value. */
const NAMED_SECRET =
  /((?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]{0,40}?(?:secret|token|passw(?:or)?d|pwd|api[_-]?key|apikey|access[_-]?key|auth[_-]?key|private[_-]?key|credential|signing[_-]?key|session[_-]?key)[A-Za-z0-9_.-]{0,40}?)(\\?["']?\s{0,8}(?:=>|:=|=|:)\s{0,8}\\?["']?)([A-Za-z0-9+/=_\-.~]{16,512})(?![A-Za-z0-9+/=_\-.~])/gi;
const BEARER = /\b(Bearer\s{1,8})([A-Za-z0-9+/=_\-.~]{20,512})(?![A-Za-z0-9+/=_\-.~])/g;
/**
 * Keys a provider marks with its own prefix, as the providers document them; the kind each is
 * redacted as. The value must end where the token's characters do.
 */
const PROVIDER_KEYS: { kind: string; pattern: RegExp }[] = [
  // Stripe: secret and restricted keys, live and test; webhook signing secrets.
  { kind: 'stripe-key', pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{24,247}(?![A-Za-z0-9])/g },
  { kind: 'stripe-webhook-secret', pattern: /(?<![A-Za-z0-9_])whsec_[A-Za-z0-9]{32,128}(?![A-Za-z0-9])/g },
  // Cloudflare: global API keys, user and account API tokens (prefix, 40 characters, an 8-hex checksum).
  { kind: 'cloudflare-api-token', pattern: /(?<![A-Za-z0-9_])cf(?:k|ut|at)_[A-Za-z0-9]{40}[0-9a-f]{8}(?![A-Za-z0-9])/g },
  // Tailscale: tskey-<type>-<id>-<secret> (auth, api, client, webhook, scim keys).
  { kind: 'tailscale-key', pattern: /(?<![A-Za-z0-9_-])tskey-[a-z]+-[A-Za-z0-9]{6,64}-[A-Za-z0-9]{16,128}(?![A-Za-z0-9_-])/g },
];

/** The provider formats' findings. */
function providerKeys(text: string): SecretFinding[] {
  const found: SecretFinding[] = [];
  for (const { kind, pattern } of PROVIDER_KEYS) {
    for (const match of text.matchAll(pattern)) found.push({ kind, start: match.index, end: match.index + match[0].length });
  }
  return found;
}

/** Values that are placeholders, not secrets. */
const PLACEHOLDER = /example|sample|dummy|placeholder|changeme|your[_-]|xxxx|\*\*\*\*|redacted|^process\.env|^os\.environ/i;

/** Shannon entropy of `text` in bits per character. */
export function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Whether a named value looks like a secret rather than a word, a number or a placeholder. */
function looksRandom(value: string): boolean {
  return /[A-Za-z]/.test(value) && /[0-9]/.test(value) && !PLACEHOLDER.test(value) && entropy(value) >= 3.5;
}

/** The generic rule's findings. */
function namedSecrets(text: string): SecretFinding[] {
  const found: SecretFinding[] = [];
  for (const match of text.matchAll(NAMED_SECRET)) {
    const value = match[3]!;
    if (!looksRandom(value)) continue;
    const start = match.index + match[1]!.length + match[2]!.length;
    found.push({ kind: 'generic-secret', start, end: start + value.length });
  }
  for (const match of text.matchAll(BEARER)) {
    const value = match[2]!;
    if (!looksRandom(value)) continue;
    const start = match.index + match[1]!.length;
    found.push({ kind: 'bearer-token', start, end: start + value.length });
  }
  return found;
}

/** Quick refusal: text with no run of 16 token characters holds no secret either detector finds. */
const CANDIDATE = /[A-Za-z0-9+/=_\-.~:@]{16}|-----BEGIN/;

/**
 * The secrets in `text`, sorted by start, overlapping ones merged (the first rule's kind kept).
 */
export async function findSecrets(text: string): Promise<SecretFinding[]> {
  if (!CANDIDATE.test(text)) return [];
  const result = await lintSource({
    source: { content: text, filePath: '/message.txt', ext: '.txt', contentType: 'text' },
    options: { config: SECRETLINT_CONFIG, noPhysicFilePath: true },
  });
  const found: SecretFinding[] = result.messages.map((message) => {
    let end = message.range[1];
    while (end < text.length && TOKEN_CHAR.test(text[end]!)) end++;
    return { kind: kindOf(message.messageId), start: message.range[0], end };
  });
  found.push(...providerKeys(text), ...namedSecrets(text));
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretFinding[] = [];
  for (const finding of found) {
    const last = merged.at(-1);
    if (last && finding.start < last.end) last.end = Math.max(last.end, finding.end);
    else merged.push({ ...finding });
  }
  return merged;
}

/** `text` with each finding replaced by its marker. */
export function replaceFindings(text: string, findings: readonly SecretFinding[]): string {
  let out = '';
  let at = 0;
  for (const finding of findings) {
    out += `${text.slice(at, finding.start)}[redacted:${finding.kind}]`;
    at = finding.end;
  }
  return out + text.slice(at);
}

/** What was taken out of something: a count per kind. */
export type RedactionCounts = Record<string, number>;

export function addCounts(into: RedactionCounts, findings: readonly { kind: string }[]): RedactionCounts {
  for (const { kind } of findings) into[kind] = (into[kind] ?? 0) + 1;
  return into;
}

/** `more`'s counts added to `into`; returns `into`. */
export function sumCounts(into: RedactionCounts, more: RedactionCounts): RedactionCounts {
  for (const [kind, count] of Object.entries(more)) into[kind] = (into[kind] ?? 0) + count;
  return into;
}

/** `text` without its secrets, and what was taken out. */
export async function redactText(text: string): Promise<{ text: string; counts: RedactionCounts }> {
  const findings = await findSecrets(text);
  if (findings.length === 0) return { text, counts: {} };
  return { text: replaceFindings(text, findings), counts: addCounts({}, findings) };
}

/**
 * A JSON text without its secrets: redacted as text when that keeps it valid JSON (a rule may
 * need a key and its value together), else string by string.
 */
export async function redactJsonText(json: string): Promise<{ text: string; counts: RedactionCounts }> {
  const whole = await redactText(json);
  if (Object.keys(whole.counts).length === 0) return whole;
  try {
    JSON.parse(whole.text);
    return whole;
  } catch {
    const counts: RedactionCounts = {};
    const walk = async (value: unknown): Promise<unknown> => {
      if (typeof value === 'string') {
        const redacted = await redactText(value);
        sumCounts(counts, redacted.counts);
        return redacted.text;
      }
      if (Array.isArray(value)) return Promise.all(value.map(walk));
      if (value !== null && typeof value === 'object') {
        const out: Record<string, unknown> = {};
        for (const [key, inner] of Object.entries(value)) out[key] = await walk(inner);
        return out;
      }
      return value;
    };
    return { text: JSON.stringify(await walk(JSON.parse(json) as unknown)), counts };
  }
}
