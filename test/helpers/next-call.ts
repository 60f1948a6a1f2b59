import { vi } from 'vitest';

/**
 * Resolves with the arguments of the next call of `object[method]` (which still runs as before):
 * a barrier for "the request has reached this point" instead of a sleep that hopes it has.
 * The spy is removed once the call happened.
 */
export function nextCall<T extends object, K extends keyof T & string>(
  object: T,
  method: K,
): Promise<T[K] extends (...args: infer A) => unknown ? A : never> {
  return new Promise((resolve) => {
    const original = object[method] as (...args: unknown[]) => unknown;
    const spy = vi.spyOn(object as Record<string, (...args: unknown[]) => unknown>, method).mockImplementation(function (this: unknown, ...args: unknown[]) {
      spy.mockRestore();
      resolve(args as never);
      return original.apply(this, args);
    });
  });
}
