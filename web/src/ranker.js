// Ranker: a user's documents ordered by their stored likes and dislikes and, when given, a query, as the Python
// runtime's Ranker (edge_ranker/runtime/ranker.py) orders them. An interest vector is a document's semantic and
// passage vectors side by side; a query is scored by the relevance model, BM25 and, across languages, the semantic
// model, and meets the interests in one score (fusion.js: the query decides what is relevant, the interests order
// within it). Without a query the interests order the feed; with neither, the newest come first. Each result's
// contributions add up to its score. Beside the likes and dislikes, the store keeps what the app showed (shown) and
// what the user opened and read (viewed): with such signals, the interests are replayed from the weighted reactions
// they make (signals.js, spec/rules/implicit.md). After the scores, a feed's top documents take turns among the
// reader's liked interests (diversity.js), a document of the same story as one ranked above it follows all the
// others, marked duplicateOf (duplicates.js), and the documents the user liked, disliked or opened go after the
// others or out of the ranking (a feed's default), or stay where their scores put them (a search's).
import { DAY, MAX_VIEW_S, SEMANTIC_SHARE, UNKNOWN_LIMIT } from "./constants.js";
import { documentId, documents, reacted } from "./documents.js";
import { DIVERSITY, diversify } from "./diversity.js";
import { FOLDS, REACTED, choice, fold, last, sink } from "./duplicates.js";
import { Encoder } from "./encoder.js";
import { EdgeRankerError, Unlearnable } from "./errors.js";
import * as fusion from "./fusion.js";
import { DEFAULT_CONFIG, active, addDwell, addViewTime, dot, interestVector, personalScores, react, takeDwell, unit } from "./interests.js";
import { bag, bm25, coverage, matched } from "./lexical.js";
import { given } from "./options.js";
import { reactions as weighted } from "./signals.js";
import { emptyState } from "./state.js";
import { MemoryStore } from "./stores/memory.js";
import { cleanText, hasWord, show, strip, terms, typeName } from "./text.js";

/** Vectors (per model), terms and flags of recently seen texts kept in memory, each. */
const CACHE_ENTRIES = 100_000;

/** A map that forgets its least recently used entries past `limit`. */
class Cache extends Map {
  constructor(limit) {
    super();
    this.limit = limit;
  }

  take(key, compute) {
    if (this.has(key)) {
      const value = super.get(key);
      this.delete(key);
      this.set(key, value);
      return value;
    }
    const value = compute();
    this.set(key, value);
    if (this.size > this.limit) this.delete(this.keys().next().value);
    return value;
  }
}

function weight(name, value) {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    const python = { NaN: "nan", Infinity: "inf", "-Infinity": "-inf" }; // as Python's repr writes them
    const got = typeof value === "number" && !Number.isFinite(value) ? python[String(value)] : show(value);
    throw new EdgeRankerError(`the ${name} weight must be a finite number >= 0, got ${got}`);
  }
  return value;
}

/** The Ranker's settings, refused in words unless each is in range (spec/rules/checks.md). */
export function checkOptions({ personalWeight, lexicalWeight, semanticQueryWeight, k }) {
  if (!Number.isInteger(k) || k < 1 || k > 1e9) throw new EdgeRankerError(`RRF k must be a whole number from 1 to 10**9, got ${k}`);
  weight("personal", personalWeight);
  weight("lexical", lexicalWeight);
  weight("semantic query", semanticQueryWeight);
}

/** One view's dwell time: seconds from 0 to MAX_VIEW_S. */
export function checkViewTime(spent) {
  if (typeof spent !== "number" || !(spent >= 0 && spent <= MAX_VIEW_S)) {
    throw new EdgeRankerError(`view time must be from 0 to ${MAX_VIEW_S} seconds (a day), got ${show(spent)}`);
  }
}

function seconds(name, value, fallback) {
  const v = value ?? fallback;
  if (typeof v !== "number" || !Number.isFinite(v)) throw new EdgeRankerError(`'${name}' must be finite unix seconds, got ${show(v)}`);
  return v;
}

const RANKER_OPTIONS = ["personalWeight", "lexicalWeight", "semanticQueryWeight", "k", "config"];

/** The interests' settings over the defaults, checked as Python's CoIConfig checks them. */
function interestConfig(config) {
  const out = { ...DEFAULT_CONFIG, ...given(config, "config", Object.keys(DEFAULT_CONFIG)) };
  for (const name of ["shiftFactor", "threshold", "horizonDays", "decayRatePerDay"]) {
    if (typeof out[name] !== "number" || !Number.isFinite(out[name])) {
      throw new EdgeRankerError(`config.${name} must be a finite number, got ${show(out[name])}`);
    }
  }
  if (!Number.isInteger(out.minPositiveCois)) throw new EdgeRankerError(`config.minPositiveCois must be a whole number, got ${show(out.minPositiveCois)}`);
  if (!(out.shiftFactor > 0 && out.shiftFactor <= 1)) throw new EdgeRankerError(`config.shiftFactor must be in (0, 1], got ${out.shiftFactor}`);
  if (!(out.threshold >= -1 && out.threshold <= 1)) throw new EdgeRankerError(`config.threshold must be a cosine in [-1, 1], got ${out.threshold}`);
  if (out.horizonDays < 0) throw new EdgeRankerError(`config.horizonDays must be >= 0, got ${out.horizonDays}`);
  if (out.decayRatePerDay >= 0) throw new EdgeRankerError(`config.decayRatePerDay must be negative, got ${out.decayRatePerDay}`);
  return Object.freeze(out);
}

const clock = () => Date.now() / 1000;

export class Ranker {
  /**
   * A Ranker in one call. `models`: a folder (path or URL) holding the "semantic" and "relevance" model folders, or
   * {semantic, relevance}, each an Encoder, a folder path or a URL (relevance: null for no queries). `store`: where
   * the user's reactions are kept (an IndexedDBStore, a FileStore; default a MemoryStore, which keeps nothing).
   */
  static async load(options) {
    const { models, store = new MemoryStore(), ...rest } = given(options, "Ranker.load", ["models", "store", ...RANKER_OPTIONS]);
    const folder = (typeof models === "string" && models) || models instanceof URL;
    if (!folder && (typeof models !== "object" || models === null || !("semantic" in models) || !("relevance" in models))) {
      throw new EdgeRankerError(
        "Ranker.load needs models: the folder (path or URL) holding 'semantic' and 'relevance', or {semantic, relevance} " +
          `(relevance: null for a feed without search), got ${show(models)}`,
      );
    }
    const named = folder ? { semantic: join(models, "semantic"), relevance: join(models, "relevance") } : models;
    const load = (m) => (m instanceof Encoder || m === null || m === undefined ? m ?? null : Encoder.load(m));
    const [semantic, relevance] = await Promise.all([load(named.semantic), load(named.relevance)]);
    const ranker = new Ranker(semantic, relevance, store, rest);
    await ranker.open();
    return ranker;
  }

  constructor(semantic, relevance, store, options = {}) {
    if (!(semantic instanceof Encoder)) throw new EdgeRankerError(`the semantic model must be an Encoder, got ${typeName(semantic)}`);
    if (relevance !== null && !(relevance instanceof Encoder)) {
      throw new EdgeRankerError(`the relevance model must be an Encoder or null, got ${typeName(relevance)}`);
    }
    if (semantic.manifest.kind === "relevance" && relevance?.manifest.kind === "semantic") {
      throw new EdgeRankerError("the models are swapped: give the semantic model as semantic and the relevance one as relevance");
    }
    if (!store || typeof store.load !== "function" || typeof store.update !== "function") {
      throw new EdgeRankerError(`store must be a MemoryStore, IndexedDBStore or FileStore, got ${typeName(store)}`);
    }
    const {
      personalWeight = fusion.PERSONAL_WEIGHT,
      lexicalWeight = fusion.LEXICAL_WEIGHT,
      semanticQueryWeight = fusion.SEMANTIC_QUERY_WEIGHT,
      k = fusion.RRF_K,
      config,
    } = given(options, "Ranker", RANKER_OPTIONS);
    this.semantic = semantic;
    this.relevance = relevance;
    this.store = store;
    checkOptions({ personalWeight, lexicalWeight, semanticQueryWeight, k });
    this.personalWeight = personalWeight;
    this.lexicalWeight = lexicalWeight;
    this.semanticQueryWeight = semanticQueryWeight;
    this.k = k;
    this.config = interestConfig(config);
    this.modelKey = relevance ? `${semantic.key}+${relevance.key}@${SEMANTIC_SHARE}` : semantic.key;
    this.caches = { s: new Cache(CACHE_ENTRIES), p: new Cache(CACHE_ENTRIES), t: new Cache(CACHE_ENTRIES) };
    this.flags = new Cache(CACHE_ENTRIES);
    this.state = emptyState(this.modelKey);
    this.replay = null; // the interests the state's signals replay into, and that state
    this.turn = Promise.resolve();
  }

  /** Reads the store; reactions stored under other models are embedded again from their texts. */
  open() {
    return this.inTurn(() => this.refresh());
  }

  /** The stored state, read again (another tab or process may have changed it), taken into these models' space. */
  async refresh() {
    const stored = await this.store.load();
    if (stored && stored.modelKey !== this.modelKey) {
      const adopted = await this.adopted(stored);
      const same = (now) =>
        now?.modelKey === stored.modelKey && now.nextEvent === stored.nextEvent && now.nextSignal === stored.nextSignal;
      this.state = await this.store.update((now) => (same(now) ? adopted : now ?? emptyState(this.modelKey)));
      if (this.state?.modelKey !== this.modelKey) return this.refresh(); // changed meanwhile: adopt what is there now
    } else {
      this.state = stored ?? emptyState(this.modelKey);
    }
  }

  /** Calls one at a time, in the order made: a like waits for the rank before it, as on the JVM. */
  inTurn(task) {
    const run = this.turn.then(task);
    this.turn = run.catch(() => {});
    return run;
  }

  /**
   * A change made on the stored state as it is now (another Ranker on the same store may have added to it) and saved
   * before it counts: a store that fails leaves the user's state as it was.
   */
  async change(mutate) {
    let result;
    try {
      this.state = await this.store.update((stored) => {
        const state = stored ?? emptyState(this.modelKey);
        if (state.modelKey !== this.modelKey) {
          throw new EdgeRankerError("the store was changed by a Ranker of other models meanwhile: load the Ranker again");
        }
        result = mutate(state);
        return state;
      });
    } catch (err) {
      if (err instanceof EdgeRankerError) throw err; // said in its own words: the stores say nothing changed
      throw new EdgeRankerError(`the store could not save the change, so nothing changed: ${err.message}`);
    }
    return result;
  }

  /**
   * The vectors rank uses for documents (`model`: "semantic", or "relevance" for its passage vectors), one per
   * document, for an app that keeps them: Python's Ranker.embed.
   */
  async embed(docs, options) {
    const { model = "semantic" } = given(options, "embed", ["model"]);
    const texts = documents(docs).map((d) => d.text);
    if (model === "semantic") return this.vectors(this.semantic, "s", texts);
    if (model === "relevance" && this.relevance) return this.vectors(this.relevance, "p", texts);
    throw new EdgeRankerError(`model must be 'semantic' or 'relevance' (with a relevance model), got ${show(model)}`);
  }

  /** The vectors of texts ("s": semantic, "p": passage), those not cached embedded in batches. */
  async vectors(encoder, kind, texts) {
    const cache = this.caches[kind];
    const found = new Map(texts.filter((t) => cache.has(t)).map((t) => [t, cache.take(t)]));
    const missing = [...new Set(texts.filter((t) => !found.has(t)))];
    if (missing.length) {
      const made = await encoder.encode(missing, { role: kind === "p" ? "passage" : undefined });
      missing.forEach((t, i) => found.set(t, cache.take(t, () => made[i])));
    }
    return texts.map((t) => found.get(t));
  }

  /** What a like stores and what interests score: the semantic vector, with the passage vector beside it. */
  async interestVectors(texts) {
    const sem = await this.vectors(this.semantic, "s", texts);
    if (!this.relevance) return sem;
    const pas = await this.vectors(this.relevance, "p", texts);
    return sem.map((s, i) => interestVector(s, pas[i]));
  }

  /** Whether a text holds a word, within what the semantic model reads. */
  hasWord(text) {
    return this.flags.take(`w\u0000${text}`, () => hasWord(this.semantic.cut(text)));
  }

  /** Whether the models can read a text: at most UNKNOWN_LIMIT of its words unknown to the semantic vocabulary. */
  readable(text) {
    return this.flags.take(`r\u0000${text}`, () => this.semantic.unknownShare(text) <= UNKNOWN_LIMIT);
  }

  /** Whether a text can teach an interest: it has a word and the models can read it (as like decides). */
  learnable(text) {
    const t = cleanText(text);
    return this.hasWord(t) && this.readable(t);
  }

  /** The user liked a document ({id, text} or [id, text]); resolves to the reaction's event number once stored. */
  like(doc, options) {
    return this.feedback(doc, "like", options);
  }

  /** The user disliked a document; resolves to the reaction's event number once stored. */
  dislike(doc, options) {
    return this.feedback(doc, "dislike", options);
  }

  feedback(doc, reaction, options) {
    return this.inTurn(async () => {
      const d = reacted(doc);
      const at = reactionTime(given(options, reaction, ["ts"]).ts);
      if (!this.hasWord(d.text)) {
        throw new Unlearnable(`document ${show(d.id)} has no word to learn an interest from (empty, or only punctuation or emoji)`);
      }
      if (!this.readable(d.text)) {
        const share = Math.ceil(100 * this.semantic.unknownShare(d.text) - 1e-9);
        throw new Unlearnable(
          `document ${show(d.id)} is not one the models can read: ${share}% of its words are unknown to their ` +
            "vocabulary (a script it lacks, or symbols within words): no interest is learnt from it",
        );
      }
      const [vector] = await this.interestVectors([d.text]);
      return this.change((state) => {
        const event = state.nextEvent++;
        state.events.push({ event, id: d.id, text: d.text, reaction, ts: at, vector });
        react(state, vector, reaction === "like", at, this.config);
        return event;
      });
    });
  }

  /**
   * The user opened a document and read it for `spent` seconds: a view, kept with the document, and its time added to
   * the closest liked interest's. A document read long enough and never liked or disliked counts as a like weaker
   * than one; one opened is never a skip (spec/rules/implicit.md). A document no interest can be learnt from is not
   * kept. `ts`: unix seconds of the view (default now).
   */
  viewed(doc, spent, options) {
    return this.inTurn(async () => {
      const d = reacted(doc);
      checkViewTime(spent);
      const at = reactionTime(given(options, "viewed", ["ts"]).ts);
      if (!this.learnable(d.text)) return;
      const [vector] = await this.interestVectors([d.text]);
      await this.change((state) => {
        signal(state, "view", d, vector, spent, at);
        addViewTime(state, vector, spent);
      });
    });
  }

  /**
   * The app displayed `docs` (say, the top of a ranked feed; what rank takes, plain texts with their positions as
   * ids): each showing is kept, and a document shown SKIP_AFTER times and never opened nor reacted to counts as a
   * dislike weaker than one, unless it is close to what the user reads (spec/rules/implicit.md). Documents no
   * interest can be learnt from are not kept. `ts`: unix seconds of the showing (default now). Resolves to how many
   * showings were kept.
   */
  shown(docs, options) {
    return this.inTurn(async () => {
      if (typeof docs === "string" || (docs !== null && typeof docs === "object" && !Array.isArray(docs))) {
        throw new EdgeRankerError("shown takes a list of documents, not one document");
      }
      const items = documents(docs).filter((d) => this.learnable(d.text));
      const at = reactionTime(given(options, "shown", ["ts"]).ts);
      if (!items.length) return 0;
      const vectors = await this.interestVectors(items.map((d) => d.text));
      return this.change((state) => {
        items.forEach((d, i) => signal(state, "shown", d, vectors[i], 0, at));
        return items.length;
      });
    });
  }

  /**
   * Undo the user's reactions to a document and its signals (showings and views): the interests are rebuilt without
   * them, as if it had never been liked, disliked, shown or read, and each view's seconds leave the liked interest
   * closest to it, as they went there; resolves to how many went.
   */
  undo(id) {
    return this.inTurn(async () => {
      const docId = documentId(id);
      return this.change((state) => {
        // a view left out (no vector under these models) has no interest to find
        const views = state.signals.filter((s) => s.id === docId && s.kind === "view" && s.seconds > 0 && !s.left);
        for (const v of views) takeDwell(state.positives, v.vector, v.seconds); // before the replay: where they went
        const kept = state.events.filter((e) => e.id !== docId);
        let gone = state.events.length - kept.length;
        if (gone) Object.assign(state, replayed(state, kept, this.config));
        const signals = state.signals.filter((s) => s.id !== docId);
        gone += state.signals.length - signals.length;
        state.signals = signals;
        return gone;
      });
    });
  }

  /** Erase every trace of the user: reactions, signals and interests, in the store and in memory. */
  erase() {
    return this.inTurn(async () => {
      await this.store.erase();
      this.state = emptyState(this.modelKey);
      this.replay = null;
      Object.values(this.caches).forEach((c) => c.clear());
      this.flags.clear();
    });
  }

  /** How many reactions the store holds, as of the last open, rank or change (another tab may have added since). */
  get reactions() {
    return this.state.events.length;
  }

  /**
   * The stored reactions, oldest first, then the signals ("shown", "view" with its seconds), oldest first, each with
   * its signal number, as of the last open, rank or change: what an app shows as liked, shown and read.
   */
  history() {
    const reactions = this.state.events.map(({ event, id, text, reaction, ts }) => ({ event, id, text, reaction, ts }));
    const signals = this.state.signals.map(({ signal, id, text, kind, seconds, ts }) => ({ signal, id, text, reaction: kind, seconds, ts }));
    return [...reactions, ...signals];
  }

  /**
   * The interests rank scores by: the stored ones; with signals, those the weighted reactions replay into, kept
   * until the state changes.
   */
  interests() {
    if (this.replay?.state !== this.state) this.replay = { state: this.state, interests: replayedWithSignals(this.state, this.config) };
    return this.replay.interests;
  }

  /**
   * Rank documents ({id, text, published?} objects, [id, text] pairs or plain texts) by the user's interests and,
   * when given, a query; resolves to the results, best first. `personalWeight`: how much the interests move this
   * query's results (0: the query alone); a feed without a query is ordered by the interests.
   * `duplicates`: "fold" (the default) puts a document of the same story as one ranked above it (its semantic cosine
   * reaches DUPLICATE_COSINE: the story in another language or other words) after all the others, marked duplicateOf
   * the id kept in place; "keep" ranks it by its score. `reacted`: what becomes of the documents the user liked,
   * disliked or opened: "sink" after the others, "leave_out" out of the ranking, "keep" where their scores put them;
   * by default "sink" for a feed and "keep" for a search (spec/rules/duplicates.md, reacted.md). `diversity`: in a
   * feed (no query) ranked by the interests, how much each document above it closest to the same liked interest
   * lowers a document's personal score as the top DIVERSITY_WINDOW are placed again, so that a reader of several
   * topics sees each near the top (default DIVERSITY; 0: the scores' order; spec/rules/diversity.md).
   */
  rank(docs, options) {
    return this.inTurn(async () => {
      const { query, now, personalWeight, duplicates = "fold", reacted: how, diversity } =
        given(options, "rank", ["query", "now", "personalWeight", "duplicates", "reacted", "diversity"]);
      const turns = diversity === undefined || diversity === null ? DIVERSITY : weight("diversity", diversity);
      choice("duplicates", FOLDS, duplicates);
      if (how !== undefined && how !== null) choice("reacted", REACTED, how);
      await this.refresh();
      return this.ranked(docs, query, now, personalWeight, duplicates, how ?? null, turns);
    });
  }

  /** The ids of the documents the user liked, disliked or opened (a view), under any models. */
  reactedIds() {
    const views = this.state.signals.filter((s) => s.kind === "view");
    return new Set([...this.state.events.map((e) => e.id), ...views.map((s) => s.id)]);
  }

  async ranked(docs, query, now, personalWeight, duplicates = "fold", how = null, diversity = DIVERSITY) {
    const items = documents(docs);
    const at = seconds("now", now, clock());
    const strength = personalWeight === undefined ? this.personalWeight : weight("personal", personalWeight);
    const q = this.queryText(query);
    const n = items.length;
    if (!n) return [];
    const texts = items.map((d) => d.text);
    const interests = this.interests();
    const usePersonal = active(interests, at, this.config);
    const wordless = texts.map((t) => !this.hasWord(t));
    const folding = duplicates === "fold" && n > 1;
    const unread = texts.map((t) => (usePersonal || q || folding) && !this.readable(t));
    const known = texts.map((_, i) => !(wordless[i] || unread[i]));
    let personal = null;
    if (usePersonal) personal = personalScores(interests, await this.interestVectors(texts), at, this.config);
    const search = q ? await this.search(q, texts, unread) : {};
    const parts = texts.map(() => ({}));
    if (search.score) {
      let lift = texts.map(() => 0);
      if (personal) {
        const share = matched(search.words, search.feed);
        lift = fusion.personalLift(personal.map((p) => p.score), share, known, strength, search.score);
      }
      const part = fusion.queryPart(search.score, lift, wordless);
      parts.forEach((p, i) => {
        p.query = part[i];
        if (personal) p.personal = lift[i];
      });
    } else if (personal) {
      const scores = personal.map((p, i) => (known[i] ? p.score : -Infinity));
      fusion.rrf(scores, this.k).forEach((c, i) => { parts[i].personal = c; });
    } else {
      const published = items.map((d) => d.published);
      fusion.recency(published, wordless, this.k).forEach((c, i) => { parts[i].recency = c; });
    }
    const total = parts.map((p) => Object.values(p).reduce((a, b) => a + b, 0));
    let order = fusion.order(total);
    const treat = how ?? (search.score ? "keep" : "sink");
    const seen = treat === "keep" ? new Set() : this.reactedIds();
    const mask = seen.size ? items.map((d) => seen.has(d.id)) : null; // sunk or left out as reacted to (null: none)
    if (diversity > 0 && personal && !search.score) { // a feed: its interests' topics take turns
      const score = personal.map((p, i) => (known[i] ? p.score : -Infinity));
      const taking = known.map((k, i) => k && !(mask && mask[i])); // a document that sinks takes no topic's turn
      const group = personal.map((p, i) => (taking[i] && p.positiveInterest !== null ? p.positiveInterest : -1));
      order = diversify(order, score, group, diversity);
    }
    let folded = null;
    if (folding) { // only documents the models read: an unread text's vector sits close to many by chance
      const vectors = await this.vectors(this.semantic, "s", texts);
      ({ order, duplicateOf: folded } = fold(order, vectors.map((v, i) => (known[i] ? v : null))));
    }
    // what the scores put last stays last: no word, and for the interests (a feed), unreadable; a query's BM25 still
    // ranks an unreadable document by its words
    const end = texts.map((_, i) => wordless[i] || Boolean(personal && !search.score && unread[i]));
    if (folding) order = last(order, end);
    if (mask) order = sink(order, mask, treat, folded ?? items.map(() => -1), end);
    return order.map((i, r) => ({
      id: items[i].id,
      score: total[i],
      rank: r + 1,
      personalScore: personal ? personal[i].score : null,
      relevanceScore: search.relevance ? search.relevance[i] : null,
      lexicalScore: search.lexical ? search.lexical[i] : null,
      semanticScore: search.semantic ? search.semantic[i] : null,
      queryScore: search.score ? search.score[i] : null,
      contributions: parts[i],
      interest: personal ? personal[i] : null,
      duplicateOf: folded && folded[i] >= 0 ? items[folded[i]].id : null,
    }));
  }

  /** The query as ranked: cleaned and stripped; null when it holds no word, which nothing can match. */
  queryText(query) {
    if (query === undefined || query === null) return null;
    if (typeof query !== "string") throw new EdgeRankerError(`query must be a string, got ${typeName(query)}`);
    const q = strip(cleanText(query));
    if (!q || !this.hasWord(q)) return null;
    if (!this.relevance) throw new EdgeRankerError("a query needs a relevance model: load the Ranker with one, or rank without the query");
    return q;
  }

  /** What the query says of each document: the relevance cosine, BM25, the semantic cosine where its words are missing. */
  async search(query, texts, unread) {
    const rel = this.relevance;
    const passages = await this.vectors(rel, "p", texts);
    const q = await rel.encode(query, { role: rel.roles.length ? "query" : undefined });
    const search = { relevance: passages.map((p) => dot(p, q)) };
    search.words = terms(rel.cut(query));
    search.feed = texts.map((t) => this.caches.t.take(t, () => bag(terms(rel.cut(t)))));
    search.cover = coverage(search.words, search.feed);
    if (this.lexicalWeight) search.lexical = bm25(search.words, search.feed);
    if (this.semanticQueryWeight && search.cover < 1) {
      const sq = await this.semantic.encode(query);
      search.semantic = (await this.vectors(this.semantic, "s", texts)).map((v) => dot(v, sq));
    }
    const blind = !this.readable(query);
    const score = fusion.queryScores(
      fusion.neutral(search.relevance, unread, blind),
      search.lexical,
      this.lexicalWeight,
      search.semantic ? fusion.neutral(search.semantic, unread, blind) : null,
      search.cover,
      this.semanticQueryWeight,
    );
    if (!(blind && score.every((s) => s === score[0]))) search.score = score;
    return search;
  }

  /**
   * A stored state of other models, its reactions and signals embedded again from their texts; those these models
   * cannot learn from stay stored, out of the interests.
   */
  async adopted(stored) {
    const events = stored.events.map((e) => ({ ...e, left: !this.learnable(e.text) }));
    const signals = stored.signals.map(({ left, ...s }) => (this.learnable(s.text) ? s : { ...s, vector: null, left: true }));
    const kept = signals.filter((s) => !s.left);
    const vectors = await this.interestVectors([...events.filter((e) => !e.left), ...kept].map((e) => e.text));
    const dwell = stored.positives.filter((c) => c.viewTime > 0).map((c) => {
      const likes = stored.events.filter((e) => e.reaction === "like" && e.vector.length === c.point.length);
      const nearest = likes.reduce((best, e) => (best && dot(best.vector, c.point) >= dot(e.vector, c.point) ? best : e), null);
      return { event: nearest?.event, seconds: c.viewTime };
    });
    let j = 0;
    for (const e of events) if (!e.left) e.vector = vectors[j++];
    for (const s of kept) s.vector = unit(vectors[j++]);
    const next = {
      ...replayed({ positives: [] }, events, this.config),
      modelKey: this.modelKey,
      nextEvent: stored.nextEvent,
      nextSignal: stored.nextSignal,
      signals,
    };
    for (const { event, seconds: spent } of dwell) {
      const like = events.find((e) => e.event === event && !e.left);
      if (like) addDwell(next.positives, like.vector, spent); // to the like's own interest, as Python
    }
    return next;
  }
}

/** The interests the stored reactions give when replayed in the order they came; dwell time moves to the closest rebuilt liked interest. */
function replayed(state, events, config) {
  const out = { events, positives: [], negatives: [] };
  for (const e of events) if (!e.left) react(out, e.vector, e.reaction === "like", e.ts, config);
  for (const c of state.positives) if (c.viewTime > 0) addDwell(out.positives, c.point, c.viewTime, config.threshold);
  return out;
}

/** A signal of a document (`kind` "shown" or "view"), kept in the state with its unit interest vector. */
function signal(state, kind, doc, vector, spent, ts) {
  state.signals.push({ signal: state.nextSignal++, id: doc.id, text: doc.text, kind, seconds: spent, ts, vector: unit(vector) });
}

/**
 * The interests of a state with signals (else its stored ones): its likes, dislikes and signals, in the order of
 * their times (at one time, the likes and dislikes first), made weighted reactions (signals.js) and replayed, each
 * interest weighing the most of the reactions it took; the stored liked interests' dwell time moves to the closest
 * replayed one, as an undo moves it.
 */
function replayedWithSignals(state, config) {
  const implicit = state.signals.filter((s) => !s.left).map((s) => ({ docId: s.id, kind: s.kind, ts: s.ts, vector: s.vector, seconds: s.seconds }));
  if (!implicit.length) return state;
  const explicit = state.events.filter((e) => !e.left).map((e) => ({ docId: e.id, kind: e.reaction, ts: e.ts, vector: e.vector }));
  const events = [...explicit, ...implicit].sort((a, b) => a.ts - b.ts); // a stable sort: at one time, as they came
  const out = { positives: [], negatives: [] };
  for (const r of weighted(events, config.threshold)) react(out, r.vector, r.positive, r.ts, config, r.weight);
  for (const c of state.positives) if (c.viewTime > 0) addDwell(out.positives, c.point, c.viewTime, config.threshold);
  return out;
}

/** A reaction's time: now by default; refused when not finite or more than a day ahead of the clock. */
function reactionTime(ts) {
  const now = clock();
  if (ts === undefined || ts === null) return now;
  if (typeof ts !== "number" || !Number.isFinite(ts) || ts < 0) {
    throw new EdgeRankerError(`feedback time must be finite, non-negative unix seconds, got ${show(ts)}`);
  }
  if (ts > now + DAY) throw new EdgeRankerError(`feedback time ${ts} is more than a day in the future (now is ${Math.round(now)})`);
  return ts;
}

function join(base, name) {
  if (base instanceof URL) return new URL(`${name}/`, base.href.endsWith("/") ? base : `${base.href}/`);
  return `${base.replace(/\/+$/, "")}/${name}`;
}
