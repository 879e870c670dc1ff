/**
 * Keeping every answer within MAX_RESULT_CHARS: a list keeps the items that fit and says where to
 * go on; a single answer is rebuilt with smaller budgets for its long parts until it fits.
 */
import { MAX_RESULT_CHARS } from './render.js';

/** What a tool answers: a text a model reads, and the same data as structuredContent. */
export interface ToolAnswer {
  text: string;
  data: Record<string, unknown>;
}

export function answerSize(answer: ToolAnswer): number {
  return answer.text.length + JSON.stringify(answer.data).length;
}

/**
 * The longest prefix of `items` whose answer fits. `build(kept, cut)`: the answer for `kept`, told
 * whether items were left out (so it can say how to ask for the rest).
 */
export function fitList<T>(items: readonly T[], build: (kept: readonly T[], cut: boolean) => ToolAnswer): ToolAnswer {
  const whole = build(items, false);
  if (answerSize(whole) <= MAX_RESULT_CHARS) return whole;
  let low = 0;
  let high = items.length - 1;
  // The largest n in [0, items.length) whose answer fits: the sizes grow with n.
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (answerSize(build(items.slice(0, middle), true)) <= MAX_RESULT_CHARS) low = middle;
    else high = middle - 1;
  }
  return build(items.slice(0, low), true);
}

/**
 * `build(scale)` with scale 1, then 1/2, 1/4 … until its answer fits; every long part of the
 * answer is cut to its budget times the scale (and says so). The last try is returned whatever
 * its size, so `build` must keep its fixed parts short.
 */
export function fitScaled(build: (scale: number) => ToolAnswer): ToolAnswer {
  let scale = 1;
  let answer = build(scale);
  for (let tries = 0; tries < 8 && answerSize(answer) > MAX_RESULT_CHARS; tries += 1) {
    scale /= 2;
    answer = build(scale);
  }
  return answer;
}
