/** The part of node:async_hooks that Workers provide under `nodejs_compat` and src/trace.ts uses. */
declare module "node:async_hooks" {
  export class AsyncLocalStorage<T> {
    run<R>(store: T, fn: () => R): R;
    getStore(): T | undefined;
  }
}
