/**
 * Counts IndexedDB transactions in the bench's engine worker: every `IDBDatabase#transaction` call,
 * reads and writes alike (idb's wrappers call the prototype method). Imported first by the bench
 * worker; production code is untouched.
 */
let count = 0;

const original = IDBDatabase.prototype.transaction;
IDBDatabase.prototype.transaction = function counted(
  this: IDBDatabase,
  ...args: Parameters<IDBDatabase['transaction']>
): IDBTransaction {
  count += 1;
  return original.apply(this, args);
};

/** Transactions opened so far. */
export function idbTransactionCount(): number {
  return count;
}
