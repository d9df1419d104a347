// A process that takes a FileStore's lock and keeps it, printing "locked" once it holds it: lock.test.js kills it.
import { FileStore } from "../src/stores/file.js";

await new FileStore(process.argv[2]).update(() => {
  process.stdout.write("locked\n");
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); // holds the lock until it is killed
});
