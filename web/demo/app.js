// The demo page: the shipped models and the demo feed served from this origin, reactions in IndexedDB, each result
// with why it is where it is.
import { IndexedDBStore, Ranker } from "/src/index.js";

const feedEl = document.querySelector("#feed");
const statusEl = document.querySelector("#status");
const queryEl = document.querySelector("#query");
const reactions = new Map(); // id -> "like" | "dislike", as shown on this page
let ranker;
let docs;

const fmt = (x) => (x >= 0 ? "+" : "") + x.toFixed(3);

/** Why a result is where it is, from its contributions and scores. */
function why(r) {
  const parts = Object.entries(r.contributions).map(([name, v]) => `${name} ${fmt(v)}`);
  const more = [];
  if (r.relevanceScore !== null) more.push(`query cosine ${r.relevanceScore.toFixed(2)}`);
  if (r.lexicalScore) more.push(`BM25 ${r.lexicalScore.toFixed(2)}`);
  if (r.semanticScore !== null) more.push(`cross-language cosine ${r.semanticScore.toFixed(2)}`);
  if (r.interest?.positiveInterest !== null && r.interest) more.push(`nearest like ${r.interest.positiveSimilarity.toFixed(2)}`);
  if (r.interest?.negativeInterest !== null && r.interest) more.push(`nearest dislike ${r.interest.negativeSimilarity.toFixed(2)}`);
  if (r.duplicateOf !== null) more.push(`the same story as ${r.duplicateOf}`);
  return `score ${r.score.toFixed(4)} = ${parts.join(" ")}${more.length ? ` · ${more.join(", ")}` : ""}`;
}

async function render() {
  const query = queryEl.value.trim() || undefined;
  const started = performance.now();
  // the stories liked or disliked stay where their scores put them, with their marks, so that a click can take a
  // reaction back and the page shows what it did to the order (an app's feed sinks them: the default)
  const ranked = await ranker.rank(docs, { query, reacted: "keep" });
  const ms = performance.now() - started;
  const byId = new Map(docs.map((d) => [d.id, d]));
  feedEl.replaceChildren(
    ...ranked.map((r) => {
      const li = document.createElement("li");
      li.dataset.id = r.id;
      li.className = reactions.get(r.id) === "like" ? "liked" : reactions.get(r.id) === "dislike" ? "disliked" : "";
      li.innerHTML = `<span class="rank"></span><div><div class="text"></div><div class="why"></div></div>
        <span class="actions"><button class="like">Like</button> <button class="dislike">Dislike</button></span>`;
      li.querySelector(".rank").textContent = String(r.rank);
      li.querySelector(".text").textContent = byId.get(r.id).text;
      li.querySelector(".why").textContent = why(r);
      li.querySelector(".like").setAttribute("aria-pressed", String(reactions.get(r.id) === "like"));
      li.querySelector(".dislike").setAttribute("aria-pressed", String(reactions.get(r.id) === "dislike"));
      li.querySelector(".like").onclick = () => react(r.id, "like");
      li.querySelector(".dislike").onclick = () => react(r.id, "dislike");
      return li;
    }),
  );
  statusEl.textContent = `${ranked.length} stories ranked in ${ms.toFixed(0)} ms${query ? ` for “${query}”` : ""} · ` +
    `${ranker.reactions} reaction${ranker.reactions === 1 ? "" : "s"} kept in this browser`;
  document.body.dataset.ready = String(Number(document.body.dataset.ready ?? 0) + 1);
}

async function react(id, reaction) {
  const doc = docs.find((d) => d.id === id);
  try {
    const before = reactions.get(id);
    if (before) {
      await ranker.undo(id);
      reactions.delete(id);
    }
    if (before !== reaction) {
      await ranker[reaction](doc);
      reactions.set(id, reaction);
    }
    await render();
  } catch (err) {
    statusEl.textContent = err.message;
  }
}

async function main() {
  const response = await fetch("/feed.jsonl");
  docs = (await response.text()).split("\n").filter(Boolean).map((line) => JSON.parse(line));
  const store = new IndexedDBStore("edge-ranker-demo");
  ranker = await Ranker.load({ models: "/models/", store });
  // the likes and dislikes (entries with an event number); the signals (shown, view) listed after them mark nothing
  for (const e of ranker.history()) if ("event" in e) reactions.set(e.id, e.reaction);
  document.querySelector("#search").onsubmit = (event) => {
    event.preventDefault();
    render();
  };
  document.querySelector("#clear").onclick = () => {
    queryEl.value = "";
    render();
  };
  document.querySelector("#erase").onclick = async () => {
    await ranker.erase();
    reactions.clear();
    await render();
  };
  await render();
}

main().catch((err) => {
  statusEl.textContent = `The demo could not start: ${err.message}`;
});
