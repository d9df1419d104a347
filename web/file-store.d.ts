import type { Store } from "./index.js";

/** Node's store: one user's reactions in a JSON file, written atomically (private to its user: mode 0600). */
export class FileStore implements Store {
  constructor(path: string);
  readonly path: string;
  load(): Promise<unknown | null>;
  save(state: unknown): Promise<void>;
  erase(): Promise<void>;
}
