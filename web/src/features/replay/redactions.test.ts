import { describe, expect, it } from 'vitest';
import { redactionSummary } from './redactions';

describe('redactionSummary', () => {
  it('says nothing for a turn with nothing redacted', () => {
    expect(redactionSummary([])).toBeNull();
    expect(redactionSummary([{ redactions: [] }, { redactions: [] }])).toBeNull();
  });

  it("sums a turn's messages by kind, kinds in order, counts above one shown", () => {
    expect(redactionSummary([{ redactions: [{ kind: 'aws-access-key', count: 1 }] }])).toBe('1 secret redacted before storing: aws-access-key');
    expect(
      redactionSummary([
        { redactions: [{ kind: 'github-token', count: 1 }] },
        { redactions: [] },
        {
          redactions: [
            { kind: 'aws-access-key', count: 1 },
            { kind: 'github-token', count: 2 },
          ],
        },
      ]),
    ).toBe('4 secrets redacted before storing: aws-access-key, github-token ×3');
  });
});
