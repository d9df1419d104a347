from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import SYLLABLES, HashTeacher, make_sentences
from tokenizers import Tokenizer

from edge_ranker.distill.batch import Group, collate
from edge_ranker.distill.config import TrainConfig
from edge_ranker.distill.train import train_student
from edge_ranker.errors import EdgeRankerError
from edge_ranker.modeling.student import StudentInfo, TorchStudentEncoder


def _data(n: int = 256):
    en = make_sentences("en", n, 7)
    # word-by-word translation into German through the shared concept table
    de_of = dict(zip(SYLLABLES["en"], SYLLABLES["de"]))
    de = [" ".join(de_of.get(w, w) for w in s.split()) for s in en]
    t = HashTeacher(dim=32)
    targets = t.encode(en)
    groups = [Group([e, d], i) for i, (e, d) in enumerate(zip(en, de))]
    return groups, targets


def test_training_lowers_the_loss(tiny_vocab, tmp_path):
    groups, targets = _data()
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    cfg = TrainConfig(
        epochs=4,
        batch_size=32,
        lr=3e-3,
        hidden=32,
        heads=2,
        ffn=64,
        max_length=32,
        losses={"mse": 1.0, "contrastive": 0.1},
        checkpoint_dir=str(tmp_path / "ckpt"),
    )
    log = train_student(groups, targets, tok, StudentInfo(), tmp_path / "s", cfg, show_progress=False)
    assert log["epochs"][-1] < 0.7 * log["epochs"][0]
    assert [p.name for p in (tmp_path / "ckpt").iterdir()] == ["step-32"]  # the newest only
    enc = TorchStudentEncoder(tmp_path / "s")
    v = enc.encode(["the cat runs", "der katze lauf", "blue water stone"])
    assert v.shape == (3, 32)
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, rtol=1e-5)


class _Killed(Exception):
    """Stands for a kill: raised from the progress bar after a given step, so the step's work and any checkpoint
    after the last one saved are lost, as with SIGKILL."""


def _stopping_bar(after: int):
    from tqdm.auto import tqdm

    class Bar(tqdm):
        steps = 0  # counted here: a disabled bar does not count

        def update(self, n=1):
            super().update(n)
            Bar.steps += n
            if Bar.steps == after:
                raise _Killed

    return Bar


@pytest.mark.parametrize(
    ("bucket", "stop", "every"),
    [(False, 21, 2), (True, 21, 2), (False, 17, 1000)],  # in the second epoch (16 steps each); just after its start
)
def test_a_killed_run_started_again_reaches_the_uninterrupted_runs_parameters(
    tiny_vocab, tmp_path, monkeypatch, bucket, stop, every
):
    import edge_ranker.distill.train as train

    groups, targets = _data()
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    groups = [Group([*g.texts, g.texts[0].upper()], g.target) for g in groups]  # three texts: draws matter

    def cfg(folder):
        return TrainConfig(
            epochs=3,
            batch_size=16,
            lr=3e-3,
            hidden=32,
            heads=2,
            ffn=64,
            max_length=32,
            dropout=0.1,  # the global RNG matters
            losses={"mse": 1.0, "contrastive": 0.1},
            bank=4,  # the bank generator matters
            texts_per_group=2,  # the collate's draws matter
            bucket_by_length=bucket,
            checkpoint_dir=str(folder),
            checkpoint_steps=every,
        )

    whole = train_student(
        groups, targets, tok, StudentInfo(), tmp_path / "whole", cfg(tmp_path / "c0"), show_progress=False
    )
    assert whole["steps"] == 48
    monkeypatch.setattr(train, "tqdm", _stopping_bar(stop))
    with pytest.raises(_Killed):
        train_student(
            groups, targets, tok, StudentInfo(), tmp_path / "resumed", cfg(tmp_path / "c1"), show_progress=False
        )
    saved = sorted(p.name for p in (tmp_path / "c1").iterdir())
    assert saved == [f"step-{20 if every == 2 else 16}"]  # the newest complete checkpoint only
    (tmp_path / "c1" / ".step-22.partial").mkdir()  # a save the kill cut short is not taken
    monkeypatch.undo()
    again = train_student(
        groups, targets, tok, StudentInfo(), tmp_path / "resumed", cfg(tmp_path / "c1"), show_progress=False
    )
    assert again["digest"] == whole["digest"]
    assert again["epochs"] == whole["epochs"]
    other = train_student(
        groups, targets, tok, StudentInfo(), tmp_path / "other", cfg(tmp_path / "c2"), show_progress=False
    )
    assert other["digest"] == whole["digest"]  # the comparison is sharp: a run is reproducible to the bit...
    fresh = cfg(tmp_path / "c3")
    fresh.seed = 1
    assert (
        train_student(groups, targets, tok, StudentInfo(), tmp_path / "s1", fresh, show_progress=False)["digest"]
        != whole["digest"]
    )


def test_distill_resumes_from_checkpoints_in_the_cache_removes_them_when_done_and_refuses_another_runs(
    tiny_vocab, tmp_path, monkeypatch
):
    import edge_ranker.distill.train as train
    from edge_ranker.distill.recipes import RECIPES, with_overrides
    from edge_ranker.distill.run import distill

    (tmp_path / "de.txt").write_text("\n".join(make_sentences("de", 96, 7)), encoding="utf-8")
    settings = {"text": [f"de={tmp_path / 'de.txt'}"], "pca_dim": 16, "epochs": 2, "batch_size": 16, "heads": 2}
    recipe = with_overrides(RECIPES["semantic"], settings | {"checkpoint_steps": 1})
    cache = tmp_path / "cache"

    def run(out, r=recipe):
        return distill(r, tiny_vocab, tmp_path / out, None, cache, HashTeacher(32), show_progress=False)

    monkeypatch.setattr(train, "tqdm", _stopping_bar(3))
    with pytest.raises(_Killed):
        run("a")
    (folder,) = (cache / "checkpoints").iterdir()
    assert sorted(p.name for p in folder.iterdir()) == ["run.json", "step-2"]  # killed in step 3
    monkeypatch.undo()
    resumed = run("a")
    assert not folder.exists()  # only there to resume the run
    assert resumed["digest"] == run("b")["digest"]  # as a run never stopped
    mine = tmp_path / "mine"
    kept = with_overrides(recipe, {"checkpoint_dir": str(mine)})
    finished = run("c", kept)["digest"]
    assert sorted(p.name for p in mine.iterdir()) == ["run.json", "step-12"]  # a folder given is kept
    shutil.rmtree(tmp_path / "c")
    assert run("c", kept)["digest"] == finished == resumed["digest"]  # started again when done: the same student
    with pytest.raises(EdgeRankerError, match="checkpoints of another run"):
        run("c", with_overrides(recipe, {"checkpoint_dir": str(mine), "seed": 1}))


def test_target_bm25_rows_are_the_runtimes_bm25_of_each_target_text_over_the_batch(tiny_vocab):
    from edge_ranker.distill.train import target_bm25
    from edge_ranker.runtime.lexical import Bag, TermIndex, bm25, standardise, terms

    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    texts = [*make_sentences("en", 6, 3), "", "?!"]
    groups = [Group([t, "ignored translation"], i) for i, t in enumerate(texts)]
    columns = [5, 0, 2, 6, 3, 7]
    got = target_bm25(groups, len(texts), tok)(columns).numpy()
    feed = TermIndex.of([Bag.of(terms(tok, texts[c])) for c in columns])
    want = np.stack([standardise(bm25(terms(tok, texts[c]), feed)) for c in columns])
    np.testing.assert_allclose(got, want, atol=1e-6)
    assert np.abs(got).sum() > 0 and not got[3].any() and not got[5].any()  # empty texts: zero rows


def test_training_with_the_lexical_relational_teacher_lowers_the_loss(tiny_vocab, tmp_path):
    groups, targets = _data()
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    cfg = TrainConfig(epochs=4, batch_size=32, lr=3e-3, hidden=32, heads=2, ffn=64, max_length=32, lexical=1.0)
    cfg.losses = {"mse": 1.0, "relational": 1.0}
    log = train_student(groups, targets, tok, StudentInfo(), tmp_path / "s", cfg, show_progress=False)
    assert log["epochs"][-1] < 0.7 * log["epochs"][0]
    with pytest.raises(EdgeRankerError, match="lexical"):
        TrainConfig(lexical=-1.0)
    with pytest.raises(EdgeRankerError, match="bank"):
        TrainConfig(lexical=1.0, bank=64)


@pytest.mark.parametrize("chunks", [2, 3, 64])
def test_length_chunked_forward_gives_the_same_vectors_and_gradients(tiny_vocab, chunks):
    from edge_ranker.modeling.student import Student, StudentTokenizer

    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    rng = np.random.default_rng(0)
    texts = [" ".join(make_sentences("en", int(rng.integers(1, 6)), i)) for i in range(12)]  # 3 to 45 words
    batch = StudentTokenizer(tok, 64)(texts)
    lengths = batch["attention_mask"].sum(1)
    assert len(set(lengths.tolist())) > 4 and int(lengths.max()) == batch["input_ids"].shape[1]
    torch.manual_seed(0)
    model = Student.create(tok.get_vocab_size(), hidden=32, heads=2, ffn=64, dropout=0.0)
    weights = torch.randn(12, 32)
    outs, grads = [], []
    for c in (1, chunks):
        model.zero_grad()
        s = model(batch["input_ids"], batch["attention_mask"], c)
        (s * weights).sum().backward()
        outs.append(s.detach())
        grads.append(torch.cat([p.grad.flatten() for p in model.parameters() if p.grad is not None]))
    torch.testing.assert_close(outs[1], outs[0], rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(grads[1], grads[0], rtol=1e-4, atol=1e-4)  # summed over rows: float rounding
    # each row is its own text's vector, not a neighbour's
    single = model(batch["input_ids"][5:6, : int(lengths[5])], batch["attention_mask"][5:6, : int(lengths[5])])
    torch.testing.assert_close(outs[1][5:6], single.detach(), rtol=1e-5, atol=1e-6)


def _launch_two(script: Path) -> subprocess.CompletedProcess:
    """`accelerate launch` with 2 CPU processes (gloo): `--multi_gpu` on a machine without GPUs."""
    accelerate = shutil.which("accelerate", path=str(Path(sys.executable).parent)) or "accelerate"
    args = ["--multi_gpu", "--num_processes", "2", "--num_machines", "1", "--mixed_precision", "no"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    cmd = [accelerate, "launch", *args, "--dynamo_backend", "no", str(script)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize("width", [0, 64])
def test_two_process_accelerate_run_trains_one_model(tiny_vocab, tmp_path, width):
    """`accelerate launch --multi_gpu` on a machine without GPUs starts 2 CPU processes (gloo); both end with
    identical parameters, i.e. they trained one model, with the same number of steps as one process would take.
    (`--cpu` alone launches a single process.) A wide student too: its unused BERT word row must not hold up the
    gradient reduction."""
    script = tmp_path / "run.py"
    groups, targets = _data(128)
    np.save(tmp_path / "targets.npy", targets)
    (tmp_path / "groups.json").write_text(json.dumps([[g.texts, g.target] for g in groups]))
    script.write_text(f"""
import json, numpy as np
from tokenizers import Tokenizer
from edge_ranker.distill.batch import Group, collate
from edge_ranker.distill.config import TrainConfig
from edge_ranker.distill.train import train_student
from edge_ranker.modeling.student import StudentInfo
groups = [Group(t, i) for t, i in json.load(open({str(tmp_path / "groups.json")!r}))]
targets = np.load({str(tmp_path / "targets.npy")!r})
tok = Tokenizer.from_file({str(tiny_vocab / "tokenizer.json")!r})
cfg = TrainConfig(epochs=2, batch_size=16, lr=3e-3, hidden=32, width={width}, heads=2, ffn=64, max_length=32)
log = train_student(groups, targets, tok, StudentInfo(), {str(tmp_path / "out")!r}, cfg, show_progress=False)
print("WORLD", log["world_size"])
""")
    r = _launch_two(script)
    assert r.returncode == 0, r.stderr[-3000:]
    log = json.loads((tmp_path / "out" / "train_log.json").read_text())
    assert log["world_size"] == 2
    assert log["steps"] == 2 * 128 // 16  # batch_size is global: 2 processes x 8 groups per step
    d0 = (tmp_path / "out" / "rank0.digest").read_text()
    d1 = (tmp_path / "out" / "rank1.digest").read_text()
    assert d0 == d1
    assert (tmp_path / "out" / "student.json").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    "teacher_scores, neighbours, judged", [("pca", 0, 0), ("full", 0, 0), ("full", 3, 0), ("pca", 0, 1)]
)
def test_two_processes_compute_the_in_batch_losses_over_the_global_batch(
    tiny_vocab, tmp_path, teacher_scores, neighbours, judged
):
    """With in-batch losses, 2 processes of 8 groups train like 1 process of 16: the same groups meet in one
    loss, so the per-epoch losses agree. Without gathering, each process would contrast 8 targets, not 16
    (and with full teacher scores, each would score its groups against the wrong teacher rows). With
    neighbours, the second process must get the first's nearest targets, and a row that both processes bring
    must be one column, as in one process's batch. With judgments, each row's judged column must follow its
    passage into the global batch."""
    groups, targets = _data(128)
    if judged:  # every 4th group is a query judged to match the next one, which rides in its batch
        for i in range(0, len(groups), 4):
            groups[i].positives, groups[i].linked = [i + 1], [groups[i + 1]]
    full = HashTeacher(dim=48).encode([g.texts[0] for g in groups])
    np.save(tmp_path / "targets.npy", targets)
    np.save(tmp_path / "full.npy", full)
    (tmp_path / "groups.json").write_text(json.dumps([[g.texts, g.target, g.positives] for g in groups]))
    losses = {"mse": 1.0, "relational": 1.0, "contrastive": 1.0, "pairwise": 1.0, "judged": float(judged)}
    cfg = dict(epochs=2, batch_size=16, lr=3e-3, hidden=32, heads=2, ffn=64, max_length=32, dropout=0.0, losses=losses)
    cfg["teacher_scores"], cfg["neighbours"] = teacher_scores, neighbours
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    one = train_student(
        groups,
        targets,
        tok,
        StudentInfo(),
        tmp_path / "one",
        TrainConfig(**cfg),
        show_progress=False,
        teacher_vectors=full,
    )
    script = tmp_path / "run.py"
    script.write_text(f"""
import json, numpy as np
from tokenizers import Tokenizer
from edge_ranker.distill.batch import Group, collate
from edge_ranker.distill.config import TrainConfig
from edge_ranker.distill.train import train_student
from edge_ranker.modeling.student import StudentInfo
groups = [Group(t, i, positives=p) for t, i, p in json.load(open({str(tmp_path / "groups.json")!r}))]
for g in groups:
    g.linked = [groups[p] for p in g.positives]
targets = np.load({str(tmp_path / "targets.npy")!r})
full = np.load({str(tmp_path / "full.npy")!r})
tok = Tokenizer.from_file({str(tiny_vocab / "tokenizer.json")!r})
train_student(groups, targets, tok, StudentInfo(), {str(tmp_path / "two")!r}, TrainConfig(**{cfg!r}),
              show_progress=False, teacher_vectors=full)
""")
    r = _launch_two(script)
    assert r.returncode == 0, r.stderr[-3000:]
    two = json.loads((tmp_path / "two" / "train_log.json").read_text())
    assert two["world_size"] == 2 and two["steps"] == one["steps"]
    np.testing.assert_allclose(two["epochs"], one["epochs"], rtol=1e-4)


def _data_root(root: Path) -> list[Group]:
    """Tatoeba-layout German-English pairs; the first English sentence is also a LASER test sentence."""
    groups, _ = _data(200)
    d = root / "parallel" / "tatoeba_v2021" / "deu-eng"
    d.mkdir(parents=True)
    (d / "t.eng").write_text("\n".join(g.texts[0] for g in groups) + "\n", encoding="utf-8")
    (d / "t.deu").write_text("\n".join(g.texts[1] for g in groups) + "\n", encoding="utf-8")
    laser = root / "parallel" / "laser_tatoeba_v1"
    laser.mkdir(parents=True)
    (laser / "tatoeba.deu-eng.eng").write_text(groups[0].texts[0] + "\n", encoding="utf-8")  # held out
    return groups


def _tiny_recipe():
    from edge_ranker.distill.recipes import Recipe

    cfg = TrainConfig(epochs=2, batch_size=16, lr=3e-3, hidden=16, heads=2, ffn=32, max_length=32)
    return Recipe(kind="semantic", teacher="unused", pca_dim=16, langs=["de"], train=cfg)


@pytest.mark.slow
def test_two_process_distill_fills_the_teacher_cache_once(tiny_vocab, tmp_path):
    """Under `accelerate launch` the main process embeds every text; the other waits and reads the cache."""
    _data_root(tmp_path / "data")
    script = tmp_path / "run.py"
    script.write_text(f"""
import json, sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from conftest import HashTeacher
from test_train import _tiny_recipe
from edge_ranker.distill.run import distill
log = distill(_tiny_recipe(), {str(tiny_vocab)!r}, {str(tmp_path / "out")!r}, {str(tmp_path / "data")!r},
              {str(tmp_path / "cache")!r}, teacher=HashTeacher(dim=32), show_progress=False)
print("LOG", json.dumps({{"rank": log["process_index"], "computed": log["teacher_computed"]}}))
""")
    r = _launch_two(script)
    assert r.returncode == 0, r.stderr[-3000:]
    logs = sorted((json.loads(line[4:]) for line in r.stdout.splitlines() if line.startswith("LOG ")), key=str)
    by_rank = {x["rank"]: x["computed"] for x in logs}
    assert set(by_rank) == {0, 1}
    assert by_rank[0] > 0 and by_rank[1] == 0


def test_distill_recipe_end_to_end(tiny_vocab, tmp_path):
    """Tiny data root in the real layout -> teacher cache -> PCA -> teacher-initialised student -> folder."""
    from edge_ranker.distill.run import distill
    from edge_ranker.modeling.pca import PCAMap

    groups = _data_root(tmp_path / "data")
    recipe = _tiny_recipe()
    teacher = HashTeacher(dim=32)
    log = distill(
        recipe,
        tiny_vocab,
        tmp_path / "out",
        tmp_path / "data",
        tmp_path / "cache",
        teacher=teacher,
        show_progress=False,
    )
    assert log["groups"] == len({g.texts[0] for g in groups[1:]})  # the held-out sentence was dropped
    assert 0 < log["pca_explained_variance"] <= 1
    pca = PCAMap.load(tmp_path / "out" / "pca.npz")
    assert pca.dim == 16
    assert (tmp_path / "cache" / "hash-teacher.sqlite").exists()
    info = json.loads((tmp_path / "out" / "student.json").read_text())
    assert info["teacher"] == "hash-teacher" and info["pca_dim"] == 16 and info["languages"] == ["en", "de"]
    # the same recipe scoring its in-batch losses with the teacher's full 32-d vectors trains too
    log = distill(
        recipe,
        tiny_vocab,
        tmp_path / "full",
        tmp_path / "data",
        tmp_path / "cache",
        teacher=teacher,
        overrides={"teacher_scores": "full", "losses": {"mse": 1.0, "relational": 1.0}},
        show_progress=False,
    )
    assert log["config"]["teacher_scores"] == "full" and log["epochs"][-1] < log["epochs"][0]


def test_full_teacher_scores_change_training_and_need_the_teachers_vectors(tiny_vocab, tmp_path):
    """The option reaches the losses (a different run from the PCA scores), and asking for it without the
    teacher's vectors is a clear error, not a silent fall-back to the PCA targets."""
    from edge_ranker.errors import EdgeRankerError

    groups, targets = _data(64)
    full = HashTeacher(dim=48).encode([g.texts[0] for g in groups])
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    losses = {"mse": 1.0, "relational": 1.0}
    logs = {}
    for scores in ("pca", "full"):
        cfg = TrainConfig(epochs=1, batch_size=16, hidden=32, heads=2, ffn=64, max_length=32, losses=losses)
        cfg.teacher_scores = scores
        logs[scores] = train_student(
            groups, targets, tok, StudentInfo(), tmp_path / scores, cfg, show_progress=False, teacher_vectors=full
        )
    assert logs["pca"]["digest"] != logs["full"]["digest"]
    cfg = TrainConfig(epochs=1, batch_size=16, hidden=32, heads=2, ffn=64, max_length=32, teacher_scores="full")
    with pytest.raises(EdgeRankerError, match="full vectors"):
        train_student(groups, targets, tok, StudentInfo(), tmp_path / "x", cfg, show_progress=False)
    with pytest.raises(EdgeRankerError, match=r"teacher_scores must be one of \('pca', 'full'\)"):
        TrainConfig(teacher_scores="ful")  # refused when the config is built, before any teacher work


def test_length_bucket_sampler_covers_every_group_once_per_epoch():
    from edge_ranker.distill.train import LengthBucketSampler

    groups = [Group(["x" * (i % 97 + 1)], i) for i in range(1000)]
    sampler = LengthBucketSampler(groups, batch_size=32, seed=0, window=5)
    first = list(sampler)
    second = list(sampler)
    assert sorted(i for b in first for i in b) == list(range(1000))
    assert first != second  # reshuffled each epoch
    assert len(first) == len(sampler)
    spread = np.mean([max(len(groups[i].texts[0]) for i in b) - min(len(groups[i].texts[0]) for i in b) for b in first])
    assert spread < 40  # random batches would span ~90 characters


def test_link_top_passages_links_each_query_to_its_teachers_best_passages():
    from edge_ranker.distill.training_set import link_top_passages

    p_vecs = np.eye(4, dtype=np.float32)
    q_vecs = np.array([[0.1, 0.9, 0.3, 0], [2, 0, 0, 1.5]], dtype=np.float32)  # norms differ: cosine decides
    passages = [Group([f"p{i}"], 10 + i) for i in range(4)]
    queries = [Group(["q0"], 0), Group(["q1"], 1)]
    link_top_passages(queries, passages, q_vecs, p_vecs, k=2)
    assert [m.target for m in queries[0].linked] == [11, 12]
    assert [m.target for m in queries[1].linked] == [10, 13]


def test_linked_groups_share_the_batch_and_a_repeated_passage_is_one_target():

    passage = Group(["a passage"], 2)
    batch = [Group(["q one"], 0, linked=[passage]), Group(["q two"], 1, linked=[passage]), passage]
    targets = np.arange(12, dtype=np.float32).reshape(4, 3)

    class _Tok:  # counts the texts; the real tokenizer is exercised by the training tests
        def __call__(self, texts):
            return {"n": len(texts)}

    enc = collate(_Tok(), torch.from_numpy(targets))(batch)
    assert enc["n"] == 5  # q one, a passage, q two, a passage, a passage
    assert enc["group"].tolist() == [0, 1, 2, 1, 1]
    np.testing.assert_array_equal(enc["target"].numpy(), targets[[0, 2, 1]])
    assert enc["positive"].tolist() == [-1] * 5  # no judgments
    batch[1].positives = [2]  # q two is judged to match the passage: its column, 1
    assert collate(_Tok(), torch.from_numpy(targets))(batch)["positive"].tolist() == [-1, -1, 1, -1, -1]


def test_training_with_judged_pairs_lowers_the_judged_loss(tiny_vocab, tmp_path):
    groups, targets = _data()
    for i in range(0, len(groups), 4):  # a "query" judged to match the next group
        groups[i].positives, groups[i].linked = [i + 1], [groups[i + 1]]
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    cfg = TrainConfig(epochs=4, batch_size=32, lr=3e-3, hidden=32, heads=2, ffn=64, max_length=32)
    cfg.losses = {"judged": 1.0}
    log = train_student(groups, targets, tok, StudentInfo(), tmp_path / "s", cfg, show_progress=False)
    assert log["epochs"][-1] < 0.7 * log["epochs"][0]


def test_link_judged_makes_each_trained_pair_a_positive_that_rides_in_the_querys_batch():
    from edge_ranker.distill.training_set import link_judged

    passages = [["cut a"], ["cut b"]]
    p_groups = [Group(["passage: cut a"], 10), Group(["passage: cut b"], 11)]
    queries = ["qa", "qb"]
    q_groups = [Group(["query: qa"], 0, linked=[p_groups[0]]), Group(["query: qb"], 1)]  # qa already mined a
    whole = {"cut a": "cut a and more", "cut b": "cut b and more"}
    pairs = [
        ("qa", "cut a and more"),
        ("qb", "cut b and more"),
        ("qb", "an untrained doc"),
        ("new q", "cut a and more"),
    ]
    link_judged(q_groups, queries, p_groups, passages, pairs, whole)
    assert q_groups[0].positives == [10] and [m.target for m in q_groups[0].linked] == [10]  # linked once
    assert q_groups[1].positives == [11] and [m.target for m in q_groups[1].linked] == [11]


@pytest.mark.parametrize("std", [0.02, 0.05])
def test_teacher_token_embeddings_keep_the_teachers_geometry_at_the_std_asked(tiny_vocab, std):
    from edge_ranker.distill.train import teacher_token_embeddings

    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    teacher = HashTeacher(dim=32)
    project = np.random.default_rng(1).normal(size=(32, 16)).astype(np.float32)
    emb = teacher_token_embeddings(tok, teacher.encode, lambda x: x @ project, std)
    vocab = sorted(tok.get_vocab().items(), key=lambda kv: kv[1])
    expected = teacher.encode([t[2:] if t.startswith("##") else t for t, _ in vocab]) @ project
    expected = (expected - expected.mean(0)) / expected.std() * std  # statistics over the whole vocabulary
    pieces = [i for t, i in vocab if not (t.startswith("[") and t.endswith("]"))]
    assert emb.shape == (tok.get_vocab_size(), 16) and emb.dtype == np.float32
    np.testing.assert_allclose(emb[pieces], expected[pieces], rtol=1e-4, atol=1e-6)
    specials = [i for t, i in vocab if i not in pieces]
    assert specials and np.abs(emb[specials]).max() < 0.2  # small random rows, not the teacher's


def test_vocab_text_groups_are_whole_word_pieces_the_tokenizer_reads_back_as_one_piece(tiny_vocab):
    from edge_ranker.distill.training_set import vocab_text_groups

    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    groups, texts = vocab_text_groups(tok, "passage: ", first_row=7)
    vocab = tok.get_vocab()
    assert texts and len(texts) == len(groups) < len(vocab)
    assert [g.target for g in groups] == list(range(7, 7 + len(texts)))
    for g, t in zip(groups, texts):
        assert g.texts == ["passage: " + t] and t in vocab and not t.startswith("##") and len(t) >= 2
        assert tok.encode(t, add_special_tokens=False).tokens == [t]
    assert not any(t.startswith("[") for t in texts)  # no special tokens
    # every whole-word piece of 2+ characters with a letter is there unless it tokenizes differently
    expected = {t for t in vocab if not t.startswith(("##", "[")) and len(t) >= 2 and any(c.isalpha() for c in t)}
    assert set(texts) <= expected and len(texts) >= 0.9 * len(expected)


def test_distill_with_vocab_texts_adds_one_group_per_piece_and_trains(tiny_vocab, tmp_path):
    from dataclasses import replace

    from edge_ranker.distill.run import distill
    from edge_ranker.distill.training_set import vocab_text_groups

    _data_root(tmp_path / "data")
    teacher = HashTeacher(dim=32)
    base = distill(
        _tiny_recipe(),
        tiny_vocab,
        tmp_path / "a",
        tmp_path / "data",
        tmp_path / "c",
        teacher=teacher,
        show_progress=False,
    )
    log = distill(
        replace(_tiny_recipe(), vocab_texts=True),
        tiny_vocab,
        tmp_path / "b",
        tmp_path / "data",
        tmp_path / "c",
        teacher=teacher,
        show_progress=False,
    )
    _, texts = vocab_text_groups(Tokenizer.from_file(str(tiny_vocab / "tokenizer.json")), "", 0)
    assert log["groups"] == base["groups"] + len(texts)
    assert log["epochs"][-1] < log["epochs"][0]


def test_bank_appends_drawn_targets_drops_copies_of_batch_targets_and_draws_alike_per_seed():
    from edge_ranker.distill.batch import with_bank

    targets = torch.randn(50, 8)
    t = targets[:5]
    full = torch.randn(50, 12)
    f = full[:5]
    out_t, out_f = with_bank(t, f, targets, full, 400, torch.Generator().manual_seed(3))
    assert torch.equal(out_t[:5], t) and torch.equal(out_f[:5], f)
    extra = out_t[5:]
    assert 0 < len(extra) < 400  # 400 draws from 50 rows hit the 5 batch rows about 40 times
    # every appended row is a non-batch target, and its full vector is the one of the same row
    rows = [int((targets == r).all(1).nonzero()) for r in extra]
    assert all(r >= 5 for r in rows)
    assert torch.equal(out_f[5:], full[rows])
    again, _ = with_bank(t, None, targets, None, 400, torch.Generator().manual_seed(3))
    assert torch.equal(again, out_t)  # same seed, same draws: every process builds the same columns


def test_bank_and_neighbours_change_training_and_refuse_a_negative_size(tiny_vocab, tmp_path):
    from edge_ranker.errors import EdgeRankerError

    groups, targets = _data(64)
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    digests = set()
    for bank, near in ((0, 0), (32, 0), (0, 4)):
        cfg = TrainConfig(epochs=1, batch_size=16, hidden=32, heads=2, ffn=64, max_length=32, bank=bank)
        cfg.losses, cfg.neighbours = {"contrastive": 1.0}, near
        out = tmp_path / f"{bank}-{near}"
        digests.add(train_student(groups, targets, tok, StudentInfo(), out, cfg, show_progress=False)["digest"])
    assert len(digests) == 3
    for bad in ({"bank": -1}, {"neighbours": -2}, {"texts_per_group": -1}):
        with pytest.raises(EdgeRankerError, match="bank, neighbours and texts_per_group must be"):
            TrainConfig(**bad)


def test_nearest_targets_are_the_closest_other_rows_never_a_copy_of_the_row():
    from edge_ranker.distill.train import nearest_targets

    targets = torch.tensor([[1.0, 0], [0.9, 0.1], [0, 1], [0.1, 0.9], [2.0, 0]])  # row 4 is row 0 scaled: a copy
    near = nearest_targets(targets, 2, block=2)
    assert near[0].tolist() == [1, 3] and near[4].tolist() == [1, 3]
    assert near[2].tolist() == [3, 1]
    assert nearest_targets(targets[:2], 8).tolist() == [[1], [0]]  # never more neighbours than other rows


def test_neighbours_are_target_only_columns_after_the_batch_targets():

    class _Tok:
        def __call__(self, texts):
            return {"n": len(texts)}

    targets = torch.arange(15, dtype=torch.float32).reshape(5, 3)
    near = torch.tensor([[1, 2], [0, 3], [0, 1], [4, 2], [3, 0]])
    enc = collate(_Tok(), targets, neighbours=near)([Group(["a", "b"], 0), Group(["c"], 3)])
    assert enc["group"].tolist() == [0, 0, 1]  # student rows point at their own targets only
    # batch targets 0 and 3, then 0's neighbours 1, 2 and 3's neighbour 4 (its 2 is already a column)
    assert torch.equal(enc["target"], targets[[0, 3, 1, 2, 4]])


def test_without_positions_the_table_stays_zero_and_word_order_does_not_matter(tiny_vocab, tmp_path):
    groups, targets = _data(64)
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    cfg = TrainConfig(epochs=2, batch_size=16, lr=3e-3, hidden=32, heads=2, ffn=64, max_length=32, positions=False)
    log = train_student(groups, targets, tok, StudentInfo(), tmp_path / "s", cfg, show_progress=False)
    assert log["epochs"][-1] < log["epochs"][0]
    enc = TorchStudentEncoder(tmp_path / "s")
    table = enc.model.bert.embeddings.position_embeddings.weight
    assert float(table.abs().max()) == 0.0
    words = groups[0].texts[0].split()
    a, b = enc.encode([" ".join(words), " ".join(reversed(words))])
    np.testing.assert_allclose(a, b, atol=1e-5)  # a bag of words: only positions could tell the orders apart


def test_texts_per_group_keeps_each_groups_first_text_and_draws_its_others_anew_each_time():
    class _Tok:
        def __call__(self, texts):
            return {"texts": texts}

    groups = [Group([f"{g}{i}" for i in range(10)], g) for g in range(2)] + [Group(["x0", "x1"], 2)]
    draw = collate(_Tok(), torch.randn(3, 4), texts_per_group=3, draws=random.Random(0))
    seen: set[str] = set()
    for _ in range(20):
        enc = draw(groups)
        texts = enc["texts"]
        assert texts[0] == "00" and texts[3] == "10" and texts[6:] == ["x0", "x1"]  # first texts always; small kept
        assert len(set(texts[:3])) == 3 and all(t.startswith("0") for t in texts[:3])
        assert enc["group"].tolist() == [0, 0, 0, 1, 1, 1, 2, 2]
        assert enc["source"].tolist() == [0, 0, 0, 3, 3, 3, 6, 6]
        seen.update(texts[1:3])
    assert len(seen) >= 7  # the others rotate: 20 draws of 2 out of 9
    again = collate(_Tok(), torch.randn(3, 4), texts_per_group=3, draws=random.Random(0))
    assert (
        again(groups)["texts"]
        == collate(_Tok(), torch.randn(3, 4), texts_per_group=3, draws=random.Random(0))(groups)["texts"]
    )
    assert collate(_Tok(), torch.randn(3, 4))(groups)["texts"] == [t for g in groups for t in g.texts]


def test_a_diverging_run_stops_with_what_to_do_and_saves_no_student(tiny_vocab, tmp_path):
    """A learning rate that sends the weights to infinity stops the run at the first loss that is not finite, with
    what to do, and writes no student: one of NaNs would pass for a model until export or ranking."""
    groups, targets = _data()
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    cfg = TrainConfig(epochs=2, batch_size=32, lr=1e30, hidden=32, heads=2, ffn=64, max_length=32)
    with pytest.raises(EdgeRankerError, match=r"training diverged.*Lower the learning rate \(--lr\)"):
        train_student(groups, targets, tok, StudentInfo(), tmp_path / "s", cfg, show_progress=False)
    assert not (tmp_path / "s" / "model.safetensors").exists()


def test_a_student_with_weights_that_are_not_finite_is_refused_by_name(tiny_vocab, tmp_path):
    from safetensors.torch import load_file, save_file

    groups, targets = _data(40)
    tok = Tokenizer.from_file(str(tiny_vocab / "tokenizer.json"))
    cfg = TrainConfig(epochs=1, batch_size=16, hidden=32, heads=2, ffn=64, max_length=32)
    train_student(groups, targets, tok, StudentInfo(), tmp_path / "s", cfg, show_progress=False)
    weights = load_file(tmp_path / "s" / "model.safetensors")
    name = next(n for n in weights if "dense.weight" in n)
    weights[name][0, 0] = float("nan")
    save_file(weights, tmp_path / "s" / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(EdgeRankerError, match="is not finite .*diverged"):
        TorchStudentEncoder(tmp_path / "s")


def test_a_config_with_no_loss_weighted_above_zero_is_refused_before_any_work():
    for losses in ({"mse": 0.0}, {"mse": 0.0, "contrastive": 0.0}, {}):
        with pytest.raises(EdgeRankerError, match="at least one loss needs a weight above 0"):
            TrainConfig(losses=losses)


def test_a_cap_of_zero_tatoeba_pairs_is_none_and_a_folder_without_its_files_is_named(tmp_path):
    from edge_ranker.datasets.training import tatoeba_pairs

    _data_root(tmp_path)
    assert tatoeba_pairs(tmp_path, ["de"], 0, held=set()) == []
    assert len(tatoeba_pairs(tmp_path, ["de"], 5, held=set())) == 5
    assert len(tatoeba_pairs(tmp_path, ["de"], None, held=set())) == 200
    (tmp_path / "parallel" / "tatoeba_v2021" / "deu-eng" / "t.eng").unlink()
    with pytest.raises(EdgeRankerError, match="lacks its .eng or .deu file"):
        tatoeba_pairs(tmp_path, ["de"], held=set())
