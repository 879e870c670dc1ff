/** Which step of a script answers a conversation (pure; the CLI itself is driven in claude-code.test.ts). */
import { describe, expect, it } from 'vitest';
import { pickStep, type Script } from './scripted-model.js';

const script: Script = {
  turns: [
    { match: /SUBAGENT_TASK/, steps: [{ write: 'sub.txt', content: 's\n' }, { text: 'Sub done.' }] },
    { match: /TURN1/, steps: [{ write: 'a.txt', content: 'a\n' }, { bash: 'true' }, { subagent: 'SUBAGENT_TASK: go' }] },
    { match: /TURN2/, steps: [{ text: 'Second.' }] },
  ],
};

const user = (...content: object[]) => ({ role: 'user', content: content as { type: string }[] });
const assistant = { role: 'assistant', content: [{ type: 'tool_use' }] };
const result = { type: 'tool_result' };
const text = (t: string) => ({ type: 'text', text: t });

describe('pickStep', () => {
  it.each([
    ['the prompt alone: the first step', [user(text('<system-reminder>…</system-reminder>'), text('TURN1: do it'))], [1, 0]],
    ['a plain string prompt', [{ role: 'user', content: 'TURN1: do it' }], [1, 0]],
    ['after two tool results: the third step', [user(text('TURN1')), assistant, user(result), assistant, user(result)], [1, 2]],
    ['a subagent, whose prompt is its own turn', [user(text('SUBAGENT_TASK: go'))], [0, 0]],
    ['a second prompt in the same conversation picks its turn', [user(text('TURN1')), assistant, user(result), { role: 'assistant', content: [text('ok')] }, user(text('TURN2'))], [2, 0]],
    ['a system message between does not count', [user(text('TURN1')), { role: 'system', content: 'agents…' }, assistant, user(result)], [1, 1]],
  ])('%s', (_name, messages, [turn, step]) => {
    expect(pickStep(script, messages)).toMatchObject({ turn, step });
  });

  it('answers past the last step with its text, or nothing (the server says "Done.")', () => {
    const afterText = pickStep(script, [user(text('TURN2')), assistant, user(result)]);
    expect(afterText).toEqual({ turn: 2, step: 1, value: { text: 'Second.' } });
    const afterTool = pickStep(script, [user(text('TURN1')), ...[1, 2, 3].flatMap(() => [assistant, user(result)])]);
    expect(afterTool).toEqual({ turn: 1, step: 3, value: undefined });
  });

  it('picks nothing when no user message matches a turn', () => {
    expect(pickStep(script, [user(text('hello'))])).toBeNull();
  });
});
