/**
 * A tool's answer holding binary data as base64 (an image or a PDF the agent read) is kept without
 * it: a note of its type and size stands in its place (src/services/hooks/binary-data.ts).
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { withoutBinaryData } from '../../src/services/hooks/binary-data.js';

/** `size` bytes that start as `magic` and go on as compressed data does. */
function file(magic: number[], size: number): Buffer {
  let seed = 7;
  const noise = Buffer.from(Array.from({ length: size * 2 }, () => (seed = (seed * 1103515245 + 12345) % 2147483648) >> 23));
  return Buffer.concat([Buffer.from(magic), deflateSync(noise)]).subarray(0, size);
}

const PNG = file([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 3000);
const JPEG = file([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10], 1001);
const PDF = Buffer.from(`%PDF-1.7\n%\u00e2\u00e3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n${'stream text '.repeat(40)}`, 'latin1');

describe('binary data in a tool answer', () => {
  it("replaces Claude Code's image and PDF reads, Gemini CLI's inline data, an MCP image and a data: URL with a note of what they were", () => {
    const answer = {
      type: 'image',
      file: { base64: PNG.toString('base64'), type: 'image/png', originalSize: PNG.length, dimensions: { originalWidth: 600, originalHeight: 400 } },
    };
    expect(withoutBinaryData(answer)).toEqual({
      type: 'image',
      file: { base64: '[image/png, 3,000 bytes of base64: not kept]', type: 'image/png', originalSize: 3000, dimensions: { originalWidth: 600, originalHeight: 400 } },
    });
    expect(withoutBinaryData({ type: 'pdf', file: { base64: PDF.toString('base64'), originalSize: PDF.length } })).toEqual({
      type: 'pdf',
      file: { base64: `[application/pdf, ${PDF.length} bytes of base64: not kept]`, originalSize: PDF.length },
    });
    expect(withoutBinaryData({ llmContent: { inlineData: { mimeType: 'image/jpeg', data: JPEG.toString('base64') } }, returnDisplay: 'Read image file: a.jpg' })).toEqual({
      llmContent: { inlineData: { mimeType: 'image/jpeg', data: '[image/jpeg, 1,001 bytes of base64: not kept]' } },
      returnDisplay: 'Read image file: a.jpg',
    });
    expect(withoutBinaryData([{ type: 'text', text: 'the page' }, { type: 'image', data: PNG.toString('base64') }])).toEqual([
      { type: 'text', text: 'the page' },
      { type: 'image', data: '[image/png, 3,000 bytes of base64: not kept]' },
    ]);
    expect(withoutBinaryData(`data:image/jpeg;base64,${JPEG.toString('base64')}`)).toBe('[image/jpeg, 1,001 bytes of base64: not kept]');
    // Binary with no type said or known from its first bytes.
    const blob = file([0x00, 0x01, 0x02], 500).toString('base64');
    expect(withoutBinaryData({ stdout: blob })).toEqual({ stdout: '[binary data, 500 bytes of base64: not kept]' });
  });

  it('keeps text: base64 of text, short strings, text with other characters, and an answer with nothing to replace as the same object', () => {
    const source = Buffer.from('export function login(user: string) {\n  return user;\n}\n'.repeat(20)).toString('base64');
    const answer = { stdout: source, stderr: '', note: PNG.toString('base64').slice(0, 200), text: `${PNG.toString('base64')} and more` };
    expect(withoutBinaryData(answer)).toBe(answer);
    expect(withoutBinaryData('plain')).toBe('plain');
    expect(withoutBinaryData(null)).toBe(null);
    expect(withoutBinaryData(42)).toBe(42);
  });
});
