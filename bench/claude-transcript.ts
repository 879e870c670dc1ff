/**
 * A made-up but realistic Claude Code transcript for the import benchmark: per prompt, a user
 * record, an API response written as several assistant records (thinking, text, tool_use), progress
 * records while the tool runs, the tool_result (file contents, test output: most of the bytes),
 * a second tool round on some turns, and a final reply ending the turn (stop_reason end_turn);
 * now and then a file-history-snapshot and a system record. Deterministic for a given seed.
 */

export interface TranscriptShape {
  sessionId: string;
  prompts: number;
  /** Varies the text; the same seed writes the same bytes. */
  seed?: number;
  /** Bytes of a typical tool result; default 5,600 (about 3 MB for 200 prompts). */
  resultBytes?: number;
}

const WORDS = (
  'the function returns a value when the test passes otherwise it throws an error we read the file and ' +
  'update the module so that each request is handled once cache invalidation price format currency locale ' +
  'import export const let await async promise resolve reject branch commit merge rebase schema query'
).split(' ');

function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

export function generateTranscript(shape: TranscriptShape): string {
  const rand = random(shape.seed ?? 1);
  const resultBytes = shape.resultBytes ?? 5_600;
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
  const code = (bytes: number) => {
    const lines: string[] = [];
    let size = 0;
    for (let i = 1; size < bytes; i++) {
      const line = `${String(i).padStart(5)}→  ${rand() < 0.3 ? 'export function' : '  const'} ${words(6)};`;
      lines.push(line);
      size += line.length + 1;
    }
    return lines.join('\n');
  };
  let counter = 0;
  const uuid = () => {
    counter += 1;
    const hex = counter.toString(16).padStart(12, '0');
    return `${(shape.seed ?? 1).toString(16).padStart(8, '0')}-0000-4000-8000-${hex}`;
  };
  let clock = Date.parse('2026-03-02T09:00:00.000Z');
  const at = () => new Date((clock += 700 + Math.floor(rand() * 3000))).toISOString();
  const base = { isSidechain: false, userType: 'external', cwd: '/home/dev/shop', sessionId: shape.sessionId, version: '2.0.14', gitBranch: 'main' };
  const out: string[] = [];
  let parent: string | null = null;
  const push = (record: Record<string, unknown>) => {
    out.push(JSON.stringify(record));
    if (typeof record.uuid === 'string') parent = record.uuid;
  };
  const usage = (output: number) => ({ input_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 20_480, output_tokens: output, service_tier: 'standard' });
  const assistant = (responseId: string, content: unknown[], stop: string | null) =>
    push({
      parentUuid: parent,
      ...base,
      type: 'assistant',
      uuid: uuid(),
      timestamp: at(),
      message: { id: responseId, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content, stop_reason: stop, stop_sequence: null, usage: usage(stop ? 300 : 5) },
      requestId: `req_${responseId.slice(4)}`,
    });
  const toolRound = (turn: number, round: number) => {
    const responseId = `msg_${shape.sessionId.slice(0, 8)}_${turn}_${round}`;
    const toolId = `toolu_${shape.sessionId.slice(0, 8)}_${turn}_${round}`;
    assistant(responseId, [{ type: 'thinking', thinking: words(40), signature: 'c2lnbmF0dXJl' }], null);
    assistant(responseId, [{ type: 'text', text: `I will look at ${words(12)}.` }], null);
    const bash = rand() < 0.5;
    assistant(responseId, [{ type: 'tool_use', id: toolId, name: bash ? 'Bash' : 'Read', input: bash ? { command: 'npm test', description: 'Run tests' } : { file_path: `/home/dev/shop/src/m${turn}.ts` } }], 'tool_use');
    for (let p = 0; p < 2; p++) push({ parentUuid: parent, ...base, type: 'progress', uuid: uuid(), timestamp: at(), data: { type: 'bash_progress', output: words(8) }, toolUseID: toolId, parentToolUseID: toolId });
    const body = code(Math.floor(resultBytes * (0.5 + rand())));
    push({
      parentUuid: parent,
      ...base,
      type: 'user',
      uuid: uuid(),
      timestamp: at(),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolId, content: body }] },
      toolUseResult: { stdout: body.slice(0, 200), stderr: '', interrupted: false },
    });
  };

  for (let turn = 1; turn <= shape.prompts; turn++) {
    if (turn % 10 === 1) out.push(JSON.stringify({ type: 'file-history-snapshot', messageId: uuid(), snapshot: { trackedFileBackups: {}, timestamp: at() }, isSnapshotUpdate: false }));
    push({ parentUuid: parent, ...base, type: 'user', uuid: uuid(), timestamp: at(), message: { role: 'user', content: `Prompt ${turn}: ${words(30 + Math.floor(rand() * 60))}` } });
    toolRound(turn, 1);
    if (rand() < 0.4) toolRound(turn, 2);
    const final = `msg_${shape.sessionId.slice(0, 8)}_${turn}_final`;
    assistant(final, [{ type: 'text', text: `Done: ${words(60 + Math.floor(rand() * 120))}` }], 'end_turn');
    if (turn % 25 === 0) push({ parentUuid: parent, ...base, type: 'system', subtype: 'informational', uuid: uuid(), timestamp: at(), content: 'Conversation compacted', level: 'info' });
  }
  out.push(JSON.stringify({ type: 'summary', summary: `Benchmark session ${shape.sessionId.slice(0, 8)}`, leafUuid: parent }));
  return `${out.join('\n')}\n`;
}
