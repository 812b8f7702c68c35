/**
 * Builds a value on first use. The coordination factories build each
 * primitive only when something uses it, so a node that never takes a lock
 * never opens the dedicated lock connection.
 */
export function lazy<T>(build: () => T): { get(): T; built(): T | undefined } {
  let value: T | undefined;
  let done = false;
  return {
    get() {
      if (!done) {
        value = build();
        done = true;
      }
      return value as T;
    },
    built: () => (done ? value : undefined),
  };
}
