// @vitest-environment jsdom
/** The replay's pure logic: step targets and states, texts, cursors, the arrow keys. */
import { afterEach, describe, expect, it } from 'vitest';
import { mergeTop, rowText } from './Timeline';
import { arrowKeyStep, mirrorStatusText, positionText, readOnlyText, replaySteps, type ViewState } from './steps';

const head = (sha: string, number: number, parent?: string) => ({ sha, parentShas: parent ? [parent] : [], turn: { number } });

describe('replaySteps', () => {
  it('at the tip: Previous goes to the first parent, Next and Back to latest are off', () => {
    const view: ViewState = { detached: false, turnCount: 4, head: head('d4', 4, 'c3'), nextTurn: null };
    expect(replaySteps(view)).toEqual({ previous: 'c3', next: null, backToLatest: false });
  });

  it('on an older turn: Next is the following turn when it grows from the viewed commit', () => {
    const view: ViewState = { detached: true, turnCount: 4, head: head('b2', 2, 'a1'), nextTurn: { sha: 'c3', parentShas: ['b2'] } };
    expect(replaySteps(view)).toEqual({ previous: 'a1', next: 'c3', backToLatest: true });
  });

  it('has no Next when the current branch goes on from another commit (a commit of another branch is viewed)', () => {
    const view: ViewState = { detached: true, turnCount: 4, head: head('x2', 2, 'a1'), nextTurn: { sha: 'c3', parentShas: ['b2'] } };
    expect(replaySteps(view).next).toBeNull();
  });

  it('has no Next while the next turn is not known yet', () => {
    expect(replaySteps({ detached: true, turnCount: 4, head: head('b2', 2, 'a1'), nextTurn: null }).next).toBeNull();
  });

  it('has no Previous on turn 1, even when its commit has a parent (the repo setup commit)', () => {
    expect(replaySteps({ detached: true, turnCount: 3, head: head('a1', 1, 'root'), nextTurn: null }).previous).toBeNull();
  });

  it('does nothing for a session without turns', () => {
    expect(replaySteps({ detached: false, turnCount: 0, head: null, nextTurn: null })).toEqual({ previous: null, next: null, backToLatest: false });
  });
});

describe('texts', () => {
  it('gives the position as "Turn X / Y"', () => {
    expect(positionText({ head: head('b2', 7, 'a1'), turnCount: 12 })).toBe('Turn 7 / 12');
    expect(positionText({ head: null, turnCount: 0 })).toBe('Turn 0 / 0');
    // At the tip while a turn is being written, that turn is the one viewed; not in replay.
    expect(positionText({ head: head('a1', 1), turnCount: 2, detached: false, openTurn: 2 })).toBe('Turn 2 / 2 (in progress)');
    expect(positionText({ head: null, turnCount: 1, detached: false, openTurn: 1 })).toBe('Turn 1 / 1 (in progress)');
    expect(positionText({ head: head('a1', 1), turnCount: 2, detached: true, openTurn: 2 })).toBe('Turn 1 / 2');
  });

  it('says read-only only while detached', () => {
    expect(readOnlyText({ detached: true, head: head('b2', 7, 'a1'), turnCount: 12, writesTo: "main's latest turn" })).toBe(
      'Viewing turn 7 of 12, read-only: the next message still goes to main\'s latest turn ("Continue from here" forks from this one)',
    );
    expect(readOnlyText({ detached: false, head: head('b2', 12, 'a1'), turnCount: 12, writesTo: 'main' })).toBeNull();
  });

  it('gives the mirror state', () => {
    const base = { inSync: true, pending: 0, lastError: null, dagTurns: 3, gitCommits: 3 };
    expect(mirrorStatusText(base)).toBe('Mirror in sync');
    expect(mirrorStatusText({ ...base, inSync: false, pending: 2 })).toBe('Mirror pending 2');
    expect(mirrorStatusText({ ...base, inSync: false, dagTurns: 5 })).toBe('Mirror pending 2');
    expect(mirrorStatusText({ ...base, inSync: false, pending: 1, lastError: 'disk full' })).toBe('Mirror failed: disk full');
    expect(mirrorStatusText(base, 'git crashed')).toBe('Mirror failed: git crashed');
  });

  it('puts "turn N" before a timeline headline that lacks it', () => {
    expect(rowText({ sha: 'a', headline: 'turn 3: hello', number: 3 })).toBe('turn 3: hello');
    expect(rowText({ sha: 'a', headline: 'hello', number: 3 })).toBe('turn 3: hello');
  });
});


describe('mergeTop', () => {
  const item = (sha: string) => ({ sha, headline: sha, number: null });
  it('puts the new commits before the listed ones', () => {
    expect(mergeTop([item('b'), item('a')], [item('d'), item('c'), item('b'), item('a')])?.map((i) => i.sha)).toEqual(['d', 'c', 'b', 'a']);
  });
  it('asks for a reset when the top no longer reaches the listed commits', () => {
    expect(mergeTop([item('b')], [item('z'), item('y')])).toBeNull();
  });
});

describe('arrowKeyStep', () => {
  const key = (k: string, extra: Partial<KeyboardEvent> = {}) => ({ key: k, altKey: false, ctrlKey: false, metaKey: false, shiftKey: false, defaultPrevented: false, ...extra });
  afterEach(() => {
    document.body.innerHTML = '';
  });

  it('maps Left to Previous and Right to Next when nothing takes text', () => {
    const button = document.createElement('button');
    document.body.append(button);
    expect(arrowKeyStep(key('ArrowLeft'), document.body)).toBe('previous');
    expect(arrowKeyStep(key('ArrowRight'), button)).toBe('next');
    expect(arrowKeyStep(key('ArrowUp'), document.body)).toBeNull();
  });

  it('maps k and j the same, and g then l to the latest turn', () => {
    expect(arrowKeyStep(key('k'), document.body)).toBe('previous');
    expect(arrowKeyStep(key('j'), document.body)).toBe('next');
    expect(arrowKeyStep(key('l'), document.body, 'g')).toBe('latest');
    expect(arrowKeyStep(key('l'), document.body, 'x')).toBeNull();
    expect(arrowKeyStep(key('g'), document.body)).toBeNull();
    expect(arrowKeyStep(key('j', { ctrlKey: true }), document.body)).toBeNull();
    const input = document.createElement('input');
    document.body.append(input);
    expect(arrowKeyStep(key('j'), input)).toBeNull();
  });

  it('ignores the keys while an input, textarea, select or editable element has focus', () => {
    document.body.innerHTML = '<input id="i"><textarea id="t"></textarea><select id="s"><option>a</option></select><div contenteditable="true"><p id="p">x</p></div><div contenteditable="false" id="f"></div>';
    for (const id of ['i', 't', 's', 'p']) expect(arrowKeyStep(key('ArrowLeft'), document.getElementById(id))).toBeNull();
    expect(arrowKeyStep(key('ArrowLeft'), document.getElementById('f'))).toBe('previous');
  });

  it('ignores the keys with a modifier or when already handled', () => {
    expect(arrowKeyStep(key('ArrowLeft', { altKey: true }), document.body)).toBeNull();
    expect(arrowKeyStep(key('ArrowRight', { metaKey: true }), document.body)).toBeNull();
    expect(arrowKeyStep(key('ArrowRight', { defaultPrevented: true }), document.body)).toBeNull();
  });
});
