// An app's use of the package, type-checked by test/types.test.js against index.d.ts.
import { Encoder, IndexedDBStore, MemoryStore, Ranker, type Ranked } from "edge-ranker";
import { FileStore } from "edge-ranker/file-store";

export async function feed(): Promise<string[]> {
  const ranker = await Ranker.load({ models: "/models/", store: new IndexedDBStore("me") });
  await ranker.like({ id: "a", text: "A story about the Moon", published: "2026-11-20" });
  await ranker.dislike(["b", "Football results"], { ts: 1_750_000_000 });
  await ranker.viewed(["a", "A story about the Moon"], 30);
  const kept: number = await ranker.shown([{ id: "c", text: "A story about Mars" }, "a plain text"], { ts: 1_750_000_000 });
  await ranker.viewed({ id: "c", text: "A story about Mars" }, 12.5, { ts: 1_750_000_100 });
  const read = ranker.history().map((h) => ("signal" in h ? `${h.reaction} ${h.seconds}s` : `${h.reaction} #${h.event}`));
  const ranked: Ranked[] = await ranker.rank(["one", { id: 2, text: "two" }], { query: "moon", personalWeight: 4 });
  const feed = await ranker.rank(["one", "two"], { duplicates: "keep", reacted: "leave_out", diversity: 0.1 });
  const folded: string | null = feed[0].duplicateOf;
  const why: number | undefined = ranked[0].contributions.query;
  const weight: number = (ranked[0].interest?.positiveWeight ?? 0) + kept + read.length;
  await ranker.undo("a");
  await ranker.erase();
  return ranked.map((r) => `${r.id} ${r.score} ${why ?? 0} ${ranker.history().length} ${weight} ${folded ?? ""}`);
}

export async function vectors(): Promise<number[][]> {
  const relevance = await Encoder.load(new URL("https://example.invalid/models/relevance/"));
  const [query, doc] = await Promise.all([relevance.encodeQuery("moon"), relevance.encode(["a story"], { role: "passage" })]);
  const ranker = new Ranker(await Encoder.load("models/semantic"), relevance, new FileStore("prefs.json"));
  await ranker.open();
  await relevance.release();
  return Encoder.similarity(query, doc).concat([[ranker.reactions]], [[new MemoryStore() ? 1 : 0]]);
}
