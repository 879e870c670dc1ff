import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findSecrets, kindOf, redactText } from '../../src/redaction/secrets.js';
import { redactMessageFields } from '../../src/redaction/message.js';
import { startTestServer } from '../helpers/server.js';
import { eventually, git } from '../helpers/git.js';

// Fixtures made here, of the shapes providers issue; none is a live credential. Built from parts
// so the file itself never holds one whole.
const join2 = (...parts: string[]) => parts.join('');
const FIXTURES: { kind: string; text: string; secret: string }[] = [
  { kind: 'github-token', secret: join2('ghp_', 'wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx'), text: 'export GITHUB_TOKEN=%s' },
  { kind: 'slack-token', secret: join2('xoxb-', '123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'), text: 'slack: %s' },
  { kind: 'anthropic-api-key', secret: join2('sk-ant-api03-', 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwx-AAAAAAAA'), text: 'key %s in .env' },
  { kind: 'postgre-sql-connection', secret: join2('postgres://app:', 's3cr3tP4ssw0rd', '@db.internal:5432/app'), text: 'DATABASE_URL=%s' },
  { kind: 'aws-access-key-id', secret: join2('AKIA', 'QYLPMN5HHHFPZAM2'), text: 'aws_access_key_id = %s' },
  { kind: 'generic-secret', secret: join2('Zk3q9', 'Xv7LmP2rT8wB4nY6'), text: 'STRIPE_WEBHOOK_SECRET=%s' },
  // Formats of providers that came after the pinned secretlint preset (src/redaction/secrets.ts PROVIDER_KEYS).
  { kind: 'stripe-key', secret: join2('sk_live_', 'Q8mZr2Lk9Vx4Tn7Bw3Hy6Pd1Fs5'), text: 'stripe.charges.create(order, { apiKey: "%s" })' },
  { kind: 'stripe-key', secret: join2('rk_test_', 'Hy6Pd1Fs5Q8mZr2Lk9Vx4Tn7Bw3'), text: 'restricted key %s for the reports job' },
  { kind: 'stripe-webhook-secret', secret: join2('whsec_', 'Mv2Kq8Rt4Yw9Lp3Zx7Nc1Bh6Dg5Fj0Sa'), text: 'stripe listen printed %s' },
  { kind: 'cloudflare-api-token', secret: join2('cfut_', 'Ab3De5Gh7Jk9Mn2Pq4St6Vw8Yz0Bc1Df3Gh5Jk7L', '9f3a0c1e'), text: 'wrangler login gave %s' },
  { kind: 'tailscale-key', secret: join2('tskey-auth-', 'kQ7yZ3CNTRL', '-', 'Wx8Rm2Lp9Vt4Kq7Zn3Bs6Yh1Dc5Fg'), text: 'tailscale up --auth-key=%s' },
  { kind: 'bearer-token', secret: join2('eyJ0eXAi', 'OiJKV1QiLCJhbGciOiJIUzI1NiJ9x7Qp'), text: 'curl -H "Authorization: Bearer %s" https://api.example.com' },
];

describe('secrets found and taken out', () => {
  it.each(FIXTURES)('$kind', async ({ kind, text, secret }) => {
    const input = text.replace('%s', secret);
    const redacted = await redactText(input);
    expect(redacted.text).not.toContain(secret);
    expect(redacted.text).toContain('[redacted:');
    expect(Object.keys(redacted.counts).length).toBeGreaterThan(0);
    // Our own rules name what they found; secretlint's kinds come from its rule messages.
    if (!/^(github|slack|anthropic|postgre|aws)/.test(kind)) expect(redacted.counts).toEqual({ [kind]: 1 });
  });

  it('leaves nothing behind per scan (secretlint profiles every scan unless told not to)', async () => {
    const marks = () => performance.getEntriesByType('mark').length + performance.getEntriesByType('measure').length;
    const before = marks();
    for (let i = 0; i < 50; i++) await redactText(`export GITHUB_TOKEN=${FIXTURES[0]!.secret} and the ${i}th line of a long tool output`);
    expect(marks()).toBe(before);
  });

  it('names kinds after the rule messages, never the value', () => {
    expect(kindOf('GITHUB_TOKEN')).toBe('github-token');
    expect(kindOf('AWSAccessKeyID')).toBe('aws-access-key-id');
  });

  it('keeps JSON content valid JSON, and redacts metadata too', async () => {
    const secret = FIXTURES[0]!.secret;
    const fields = await redactMessageFields(JSON.stringify({ command: `echo ${secret}` }), JSON.stringify({ env: { TOKEN: secret } }));
    expect(JSON.parse(fields.content)).toEqual({ command: 'echo [redacted:github-token]' });
    expect(fields.metadata).not.toContain(secret);
    expect(JSON.parse(fields.redactions!)).toEqual({ 'github-token': 2 });
  });

  it('finds nothing in ordinary code and prose: this project’s own sources and docs', async () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) {
          if (name !== 'generated') walk(path);
        } else if (/\.(ts|tsx|md|css|mjs)$/.test(name)) files.push(path);
      }
    };
    for (const dir of ['src', 'web/src', 'bench', 'docs', 'scripts']) walk(join(root, dir));
    files.push(join(root, 'README.md'));
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const finding of await findSecrets(text)) found.push(`${file}: ${finding.kind} ${JSON.stringify(text.slice(finding.start, finding.end).slice(0, 12))}…`);
    }
    expect(found).toEqual([]);
  });
});

describe('messages are stored without their secrets', () => {
  const secret = FIXTURES[0]!.secret;
  const recordTurn = `mutation($input: RecordTurnInput!) { recordTurn(input: $input) { number } }`;
  const read = `query($id: String!) { session(sessionId: $id) { messages(first: 10) { edges { node { content } } } } }`;

  it('takes them out before the database (and so the session repo) sees them; --redact off keeps them', async () => {
    for (const redact of [true, false]) {
      const api = await startTestServer({ redact });
      const sessionId = `s-${redact}`;
      expect((await api.raw(`mutation { createSession(input: { sessionId: "${sessionId}" }) { sessionId } }`)).errors).toBeUndefined();
      const turn = await api.raw(recordTurn, {
        input: { sessionId, user: { content: `use ${secret} please` }, assistant: { content: `I exported GITHUB_TOKEN=${secret}.` } },
      });
      expect(turn.errors).toBeUndefined();
      const view = await api.raw(read, { id: sessionId });
      const contents = JSON.stringify(view.data);
      if (redact) {
        expect(contents).not.toContain(secret);
        expect(contents).toContain('[redacted:github-token]');
      } else {
        expect(contents).toContain(secret);
      }
      const rows = await api.server.app.deps.db.message.findMany({ where: { sessionId }, select: { content: true, redactions: true } });
      expect(rows.map((row) => row.redactions)).toEqual(redact ? ['{"github-token":1}', '{"github-token":1}'] : [null, null]);

      // What was taken out, per message and per turn, by kind (never the value).
      const counted = await api.raw(
        `query($id: String!) { session(sessionId: $id) { turns(first: 5) { edges { node { redactions { kind count } messages { role redactions { kind count } } } } } } }`,
        { id: sessionId },
      );
      const one = redact ? [{ kind: 'github-token', count: 1 }] : [];
      expect((counted.data as { session: unknown }).session).toEqual({
        turns: {
          edges: [
            {
              node: {
                redactions: redact ? [{ kind: 'github-token', count: 2 }] : [],
                messages: [
                  { role: 'USER', redactions: one },
                  { role: 'ASSISTANT', redactions: one },
                ],
              },
            },
          ],
        },
      });

      // The session repo holds what the database holds: the marker, never the value.
      const repo = await eventually(async () => {
        const { data } = await api.raw(`query($id: String!) { session(sessionId: $id) { repoPath mirror { inSync } } }`, { id: sessionId });
        const session = (data as { session: { repoPath: string; mirror: { inSync: boolean } } }).session;
        return session.mirror.inSync ? session.repoPath : undefined;
      });
      const history = git(repo, 'log', '-p', '--all');
      expect(history.includes(secret)).toBe(!redact);
      expect(history.includes('[redacted:github-token]')).toBe(redact);
    }
  });
});
