/**
 * Everything a test starts (servers, clients, temp folders) is pushed here and
 * disposed after that test, in reverse order, so no test leaks a socket, a
 * port or a folder into the next.
 */
import { afterAll, afterEach } from 'vitest';

type Disposer = () => unknown;

const leftovers: Disposer[] = [];
/** What a file's shared setup started (`forTheFile`): disposed after its last test. */
const fileLeftovers: Disposer[] = [];
let setupList: Disposer[] | undefined;

export function onCleanup(dispose: Disposer): void {
  (setupList ?? leftovers).push(dispose);
}

/**
 * Runs a `beforeAll`'s setup so that what it starts (a server, a repo) lives until the file's
 * last test instead of being disposed after the first. Tests of a file run one after another,
 * so nothing else registers meanwhile.
 */
export async function forTheFile<T>(setup: () => Promise<T>): Promise<T> {
  const list: Disposer[] = [];
  setupList = list;
  try {
    return await setup();
  } finally {
    setupList = undefined;
    fileLeftovers.push(...list);
  }
}

afterEach(() => disposeAll(leftovers));
afterAll(() => disposeAll(fileLeftovers));

async function disposeAll(list: Disposer[]): Promise<void> {
  const errors: unknown[] = [];
  while (list.length > 0) {
    const dispose = list.pop()!;
    try {
      await dispose();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length > 0) throw errors[0];
}
