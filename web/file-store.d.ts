import type { Store, StoredState } from "./index.js";

/**
 * Node's store: one user's reactions in a JSON file, written atomically (private to its user: mode 0600), each change
 * under a lock file beside it.
 */
export class FileStore implements Store {
  constructor(path: string);
  readonly path: string;
  load(): Promise<StoredState | null>;
  update(change: (stored: StoredState | null) => StoredState): Promise<StoredState>;
  erase(): Promise<void>;
}
