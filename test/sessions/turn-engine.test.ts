import { describe, expect, it } from 'vitest';
import { classify, type Incoming, type TurnDecision, type TurnState } from '../../src/services/sessions/turn-engine.js';

/** A refusal as the caller sees it: its code, its message and its details, not the Error object. */
function shown(decision: TurnDecision) {
  if (decision.kind !== 'refuse') return decision;
  return { kind: 'refuse', code: decision.error.code, message: decision.error.message, details: decision.error.details };
}

const t1 = { turnId: 't1', tip: 'a1' };
const t2 = { turnId: 't2', tip: 'a2' };
/** An open turn 3: its prompt u3, a reply a3 and a tool result r3. */
const open = { number: 3, members: [{ messageId: 'u3', role: 'USER' }, { messageId: 'a3', role: 'ASSISTANT' }, { messageId: 'r3', role: 'TOOL' }] } as const;
const api: TurnState = { source: 'api', sessionId: 's', branch: 'main', viewTurnId: null, open: null };
const imported: TurnState = { ...api, source: 'import', predecessor: null };

type Row = { name: string; state?: Partial<TurnState>; incoming?: Partial<Incoming>; expected: ReturnType<typeof shown> };

function table(base: TurnState, via: Incoming['via'], role: Incoming['role'], rows: Row[]) {
  it.each(rows)('$name', ({ state, incoming, expected }) => {
    const message: Incoming = { via, role, messageId: 'm', predecessorId: null, callerId: null, ...incoming };
    expect(shown(classify({ ...base, ...state }, message))).toEqual(expected);
  });
}

describe('a message from the API (appendMessage)', () => {
  table(api, 'message', 'USER', [
    { name: 'a USER message opens a turn', incoming: { predecessorId: 'a1' }, expected: { kind: 'newTurn', predecessorId: 'a1' } },
    { name: 'an ASSISTANT message answering an earlier one outside a turn is a retry', incoming: { role: 'ASSISTANT', predecessorId: 'u1' }, expected: { kind: 'retryOf', userMessageId: 'u1' } },
    { name: 'an ASSISTANT message in a turn joins it', state: { open }, incoming: { role: 'ASSISTANT', predecessorId: 'u3' }, expected: { kind: 'joins', predecessorId: 'u3', callerId: null } },
    { name: 'an ASSISTANT message naming no predecessor joins (or is refused there)', incoming: { role: 'ASSISTANT' }, expected: { kind: 'joins', predecessorId: null, callerId: null } },
    { name: 'a TOOL or SYSTEM message joins', incoming: { role: 'TOOL', callerId: 'a3' }, expected: { kind: 'joins', predecessorId: null, callerId: 'a3' } },
  ]);
});

describe('an imported message', () => {
  const known = (role: Incoming['role'], turnId: string | null, turnTip: string | null, replied = false) => ({ role, turnId, turnTip, replied });
  table(imported, 'message', 'USER', [
    { name: 'its predecessor is asked for when not given', state: { predecessor: undefined }, incoming: { predecessorId: 'x' }, expected: { kind: 'need', fact: 'predecessor' } },
    { name: 'a predecessor the session does not have: dropped', incoming: { predecessorId: 'x' }, expected: { kind: 'drop', reason: 'its predecessor x is not in the session' } },
    { name: 'a prompt while a turn is open closes it first', state: { open }, expected: { kind: 'close' } },
    { name: 'a prompt opens a turn', expected: { kind: 'newTurn', predecessorId: null } },
    { name: 'a prompt after the middle of a turn grows from its end', state: { predecessor: known('ASSISTANT', 't1', 'r1') }, incoming: { predecessorId: 'a1' }, expected: { kind: 'newTurn', predecessorId: 'r1' } },
    { name: 'a prompt after a message in no turn: dropped', state: { predecessor: known('SYSTEM', null, null) }, incoming: { predecessorId: 'x' }, expected: { kind: 'drop', reason: 'its predecessor x is in no turn' } },
    { name: 'a SYSTEM record outside a turn opens one (a local command before the first prompt)', incoming: { role: 'SYSTEM' }, expected: { kind: 'newTurn', predecessorId: null } },
    { name: 'a SYSTEM record in a turn joins it', state: { open }, incoming: { role: 'SYSTEM' }, expected: { kind: 'joins', predecessorId: null, callerId: null } },
    { name: 'a second reply to an answered prompt is a retry', state: { predecessor: known('USER', 't1', 'a1', true) }, incoming: { role: 'ASSISTANT', predecessorId: 'u1' }, expected: { kind: 'retryOf', userMessageId: 'u1' } },
    { name: 'and closes the open turn first', state: { open, predecessor: known('USER', 't1', 'a1', true) }, incoming: { role: 'ASSISTANT', predecessorId: 'u1' }, expected: { kind: 'close' } },
    { name: 'a reply before any prompt: dropped', incoming: { role: 'ASSISTANT' }, expected: { kind: 'drop', reason: 'it comes before any prompt' } },
    { name: 'a record after a closed turn (a late record) is the next turn, on the current branch', state: { predecessor: known('ASSISTANT', 't1', 'a1') }, incoming: { role: 'TOOL', predecessorId: 'a1' }, expected: { kind: 'newTurn', predecessorId: null } },
    { name: 'a late record while another turn is open joins it after its last message', state: { open, predecessor: known('ASSISTANT', 't1', 'a1') }, incoming: { role: 'ASSISTANT', predecessorId: 'a1' }, expected: { kind: 'joins', predecessorId: null, callerId: null } },
    { name: 'a late tool result while another turn is open is called by that turn’s last reply', state: { open, predecessor: known('ASSISTANT', 't1', 'a1') }, incoming: { role: 'TOOL', predecessorId: 'a1', callerId: 'a1' }, expected: { kind: 'joins', predecessorId: null, callerId: null } },
    { name: 'a reply in the open turn joins it, any caller left out', state: { open, predecessor: known('USER', 't3', 'r3') }, incoming: { role: 'ASSISTANT', predecessorId: 'u3', callerId: 'a3' }, expected: { kind: 'joins', predecessorId: 'u3', callerId: null } },
    { name: 'a tool result keeps a caller that is a reply of its turn', state: { open }, incoming: { role: 'TOOL', callerId: 'a3' }, expected: { kind: 'joins', predecessorId: null, callerId: 'a3' } },
    { name: 'a tool result naming another caller is called by the turn’s last reply', state: { open }, incoming: { role: 'TOOL', callerId: 'r3' }, expected: { kind: 'joins', predecessorId: null, callerId: null } },
    { name: 'a tool result in a turn without a reply: dropped', state: { open: { number: 3, members: [{ messageId: 'u3', role: 'USER' }] } }, incoming: { role: 'TOOL' }, expected: { kind: 'drop', reason: 'a tool result with no assistant message in its turn to be its caller' } },
  ]);
});

describe('a message opening a turn', () => {
  table(api, 'turn', 'USER', [
    { name: 'the branch’s head is asked for', expected: { kind: 'need', fact: 'head' } },
    { name: 'the first turn of a branch grows from nothing', state: { head: null }, expected: { kind: 'open' } },
    { name: 'a turn continues from the branch’s head', state: { head: t2 }, expected: { kind: 'continue', from: t2 } },
    { name: 'naming the head’s last message continues too', state: { head: t2 }, incoming: { predecessorId: 'a2' }, expected: { kind: 'continue', from: t2 } },
    { name: 'during replay the viewed turn is asked for', state: { head: t2, viewTurnId: 't1' }, expected: { kind: 'need', fact: 'viewed' } },
    { name: 'and the turn forks from it', state: { head: t2, viewTurnId: 't1', viewed: t1 }, expected: { kind: 'fork', from: t1, branch: 'fork-m' } },
    { name: 'viewing the head is no fork', state: { head: t2, viewTurnId: 't2' }, expected: { kind: 'continue', from: t2 } },
    { name: 'an earlier predecessor is looked up', state: { head: t2 }, incoming: { predecessorId: 'a1' }, expected: { kind: 'need', fact: 'point' } },
    { name: 'the last message of an earlier closed turn forks from that turn', state: { head: t2, point: t1 }, incoming: { predecessorId: 'a1' }, expected: { kind: 'fork', from: t1, branch: 'fork-m' } },
    { name: 'naming the head’s last message while viewing another turn continues from the head', state: { head: t2, viewTurnId: 't1', viewed: t1, point: t2 }, incoming: { predecessorId: 'a2' }, expected: { kind: 'continue', from: t2 } },
    {
      name: 'refused: a turn is open',
      state: { open },
      expected: { kind: 'refuse', code: 'CONFLICT', message: 'Turn 3 of session s is still open: end it (endTurn) before sending the next user message.', details: undefined },
    },
    {
      name: 'refused: a caller',
      incoming: { callerId: 'a1' },
      expected: { kind: 'refuse', code: 'BAD_USER_INPUT', message: 'callerId is only for TOOL messages.', details: { field: 'callerId' } },
    },
    {
      name: 'refused: a predecessor that is not the last message of a closed turn',
      state: { head: t2, point: null },
      incoming: { predecessorId: 'u2' },
      expected: { kind: 'refuse', code: 'BAD_USER_INPUT', message: 'predecessorId must be the last message of a closed turn (here a2); leave it out to continue from there.', details: { field: 'predecessorId' } },
    },
    {
      name: 'refused: a predecessor for a branch’s first message',
      state: { head: null, point: null },
      incoming: { predecessorId: 'x' },
      expected: { kind: 'refuse', code: 'BAD_USER_INPUT', message: 'This is the first message of branch main: leave predecessorId out.', details: { field: 'predecessorId' } },
    },
    {
      name: 'refused: a fork named after an id git cannot take as a branch',
      state: { head: t2, point: t1 },
      incoming: { predecessorId: 'a1', messageId: 'u.lock' },
      expected: {
        kind: 'refuse',
        code: 'BAD_USER_INPUT',
        message: 'The branch "fork-u.lock" named after messageId is not a name git accepts: it has a part ending in ".lock" ("fork-u.lock"). Choose another messageId.',
        details: { field: 'messageId', rule: 'lock-suffix', branch: 'fork-u.lock' },
      },
    },
  ]);
});

describe('a retry', () => {
  const answered = { role: 'USER', replied: true } as const;
  table({ ...api, head: t2 }, 'retry', 'ASSISTANT', [
    { name: 'the message answered is asked for', incoming: { predecessorId: 'u1' }, expected: { kind: 'need', fact: 'answered' } },
    { name: 'an answered user message is retried on branch retry-<reply id>', state: { answered }, incoming: { predecessorId: 'u1' }, expected: { kind: 'retry', answered, branch: 'retry-m' } },
    {
      name: 'refused: a turn is open',
      state: { open },
      incoming: { predecessorId: 'u1' },
      expected: { kind: 'refuse', code: 'CONFLICT', message: 'Session s has an open turn: end it (endTurn) before retrying an earlier one.', details: undefined },
    },
    {
      name: 'refused: no such message',
      state: { answered: null },
      incoming: { predecessorId: 'u9' },
      expected: { kind: 'refuse', code: 'NOT_FOUND', message: 'Session s has no message "u9".', details: { field: 'userMessageId' } },
    },
    {
      name: 'refused: not a user message',
      state: { answered: { role: 'ASSISTANT', replied: true } },
      incoming: { predecessorId: 'a1' },
      expected: { kind: 'refuse', code: 'BAD_USER_INPUT', message: 'Message a1 is not a user message with a reply; only an answered user message can be retried.', details: { field: 'userMessageId' } },
    },
    {
      name: 'refused: a user message without a reply (or in the open turn)',
      state: { answered: { role: 'USER', replied: false } },
      incoming: { predecessorId: 'u1' },
      expected: { kind: 'refuse', code: 'BAD_USER_INPUT', message: 'Message u1 is not a user message with a reply; only an answered user message can be retried.', details: { field: 'userMessageId' } },
    },
    {
      name: 'refused: a branch named after an id git cannot take',
      state: { answered },
      incoming: { predecessorId: 'u1', messageId: 'a.lock' },
      expected: {
        kind: 'refuse',
        code: 'BAD_USER_INPUT',
        message: 'The branch "retry-a.lock" named after messageId is not a name git accepts: it has a part ending in ".lock" ("retry-a.lock"). Choose another messageId.',
        details: { field: 'messageId', rule: 'lock-suffix', branch: 'retry-a.lock' },
      },
    },
  ]);
});

describe('a message joining the open turn', () => {
  table({ ...api, open }, 'join', 'TOOL', [
    { name: 'follows the turn’s last message, called by its last reply', expected: { kind: 'join', predecessorId: 'r3', callerId: 'a3' } },
    { name: 'follows the message of the turn it names', incoming: { role: 'ASSISTANT', predecessorId: 'u3' }, expected: { kind: 'join', predecessorId: 'u3', callerId: null } },
    { name: 'a tool result is called by the reply it names', incoming: { callerId: 'a3' }, expected: { kind: 'join', predecessorId: 'r3', callerId: 'a3' } },
    { name: 'a reply naming a message outside the turn: its role is asked for', incoming: { role: 'ASSISTANT', predecessorId: 'u1' }, expected: { kind: 'need', fact: 'predecessorRole' } },
    {
      name: 'refused: no open turn',
      state: { open: null },
      expected: { kind: 'refuse', code: 'BAD_USER_INPUT', message: 'Session s has no open turn to add a TOOL message: a USER message opens one.', details: undefined },
    },
    {
      name: 'refused: a reply to an earlier user message while a turn is open',
      state: { predecessorRole: 'USER' },
      incoming: { role: 'ASSISTANT', predecessorId: 'u1' },
      expected: { kind: 'refuse', code: 'CONFLICT', message: 'Turn 3 is open: end it (endTurn) before retrying an earlier user message.', details: undefined },
    },
    {
      name: 'refused: a predecessor outside the open turn',
      state: { predecessorRole: 'ASSISTANT' },
      incoming: { role: 'ASSISTANT', predecessorId: 'a1' },
      expected: { kind: 'refuse', code: 'BAD_USER_INPUT', message: 'predecessorId "a1" is not a message of the open turn 3; leave it out to follow the turn\'s last message.', details: { field: 'predecessorId' } },
    },
    {
      name: 'refused: a caller that is not a reply of the open turn',
      incoming: { callerId: 'u3' },
      expected: { kind: 'refuse', code: 'BAD_USER_INPUT', message: 'callerId "u3" is not an ASSISTANT message of the open turn 3.', details: { field: 'callerId' } },
    },
    {
      name: 'refused: a tool result before any reply',
      state: { open: { number: 3, members: [{ messageId: 'u3', role: 'USER' }] } },
      expected: {
        kind: 'refuse',
        code: 'BAD_USER_INPUT',
        message: 'A TOOL message needs an ASSISTANT message in the open turn to be its caller; append the assistant message first.',
        details: { field: 'callerId' },
      },
    },
    {
      name: 'refused: a caller on a message that is not a tool result',
      incoming: { role: 'ASSISTANT', callerId: 'a3' },
      expected: { kind: 'refuse', code: 'BAD_USER_INPUT', message: 'callerId is only for TOOL messages.', details: { field: 'callerId' } },
    },
  ]);
});
