import type { KeyedLocks } from '../../src/locks.js';

/**
 * Takes `key`'s lock as a holder in flight would (a mirror pass on a session
 * repo, say) and resolves once it is held; the function it resolves to lets
 * the lock go and resolves when the holder has left.
 */
export async function holdLock(locks: KeyedLocks, key: string): Promise<() => Promise<void>> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const holding = locks.run(key, async () => {
    entered();
    await held;
  });
  await inside;
  return async () => {
    release();
    await holding;
  };
}
