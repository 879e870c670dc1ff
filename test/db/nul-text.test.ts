import { describe, expect, it } from 'vitest';
import { escapeNul, unescapeNul } from '../../src/db/nul-text.js';

describe('message text with NUL, as PostgreSQL stores it', () => {
  it('stores no NUL and reads every text back exactly, the escape itself included', () => {
    const mark = '\u{F8FF}nul\u{F8FF}';
    const texts = ['plain', '', 'a\0b', '\0', '%00 and %25 and \0\0%', `${mark}looks escaped`, `${mark}`, 'é\0ü', '100%'];
    for (const text of texts) {
      const stored = escapeNul(text);
      expect(stored.includes('\0'), JSON.stringify(text)).toBe(false);
      expect(unescapeNul(stored), JSON.stringify(text)).toBe(text);
    }
    // Text without NUL or the mark is stored as it is.
    expect(escapeNul('100% plain')).toBe('100% plain');
  });
});
