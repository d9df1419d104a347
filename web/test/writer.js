// A process that likes one story after another in a FileStore and prints each id once the like is acknowledged:
// stores.test.js kills it mid-write and checks the file still holds every acknowledged like.
import { Ranker } from "../src/index.js";
import { FileStore } from "../src/stores/file.js";

const [models, path] = process.argv.slice(2);
const ranker = await Ranker.load({ models, store: new FileStore(path) });
for (let i = 0; ; i++) {
  await ranker.like([`s${i}`, `A story about rockets and the Moon, number ${i}`]);
  process.stdout.write(`s${i}\n`);
}
