"""``distill``: one recipe, teacher to trained student."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from edge_ranker.cli.common import OVERWRITE_HELP, print_json
from edge_ranker.paths import DATA_HELP, cache_root, data_root, output_folder


def cmd_distill(a: argparse.Namespace) -> None:
    from edge_ranker.distill.config import TrainConfig
    from edge_ranker.distill.options import given
    from edge_ranker.distill.recipes import Recipe, load_recipe, with_overrides
    from edge_ranker.distill.run import distill

    overrides = given(a, Recipe, TrainConfig)
    recipe = with_overrides(load_recipe(a.recipe), overrides)
    root = data_root(a.data) if recipe.reads_data_root else None
    a.out = output_folder(a.out, "student", a.overwrite)  # before the teacher phase, which can take an hour
    if recipe.train.checkpoint_dir:  # may hold this run's checkpoints, which it resumes from (distill checks whose)
        checkpoints = output_folder(recipe.train.checkpoint_dir, "checkpoints", overwrite=True)
        recipe = with_overrides(recipe, {"checkpoint_dir": str(checkpoints)})
    log = distill(recipe, a.vocab, a.out, root, cache_root(a.cache))
    if log["process_index"]:  # under `accelerate launch` every process returns; the main one reports
        return
    keys = (
        "epochs",
        "world_size",
        "groups",
        "pca_explained_variance",
        "teacher_computed",
        "teacher_seconds",
        "train_seconds",
    )
    report = {k: log[k] for k in keys if k in log}
    if recipe.parallel and recipe.held_out:
        from edge_ranker.evaluate.user_data import evaluate_held_out
        from edge_ranker.modeling.student import TorchStudentEncoder
        from edge_ranker.teachers import CachedTeacher, load_teacher

        teacher = CachedTeacher(load_teacher(recipe.teacher), cache_root(a.cache))
        try:
            report["held_out"] = evaluate_held_out(
                TorchStudentEncoder(a.out), teacher, recipe.parallel, recipe.held_out, recipe.train.seed
            )
        finally:
            teacher.close()
        (Path(a.out) / "held_out.json").write_text(json.dumps(report["held_out"], indent=2, ensure_ascii=False))
    print_json(report)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """distill"""
    from edge_ranker.distill.config import TrainConfig
    from edge_ranker.distill.options import add_options
    from edge_ranker.distill.recipes import RECIPES, Recipe

    d = sub.add_parser(
        "distill",
        help="distil a teacher into a small student (accelerate launch works)",
        description="Every option below sets one field of the recipe (distill/recipes.py) or of its training "
        "config (distill/config.py); unset ones keep the recipe's value, shown in parentheses, except that "
        "--parallel or --text turns the recipe's data sets off.",
    )
    d.add_argument(
        "recipe",
        help=f"the recipe: {' or '.join(sorted(RECIPES))} (edge_ranker/recipes/), or your own recipe JSON file",
    )
    d.add_argument("--vocab", required=True, help="folder with tokenizer.json")
    d.add_argument("--out", required=True, help="folder for the trained student")
    d.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    d.add_argument("--data", help=DATA_HELP)
    d.add_argument("--cache", help="teacher cache folder (default $EDGE_RANKER_CACHE or the user cache)")
    add_options(d, Recipe, RECIPES)
    add_options(d, TrainConfig, {name: r.train for name, r in RECIPES.items()})
    d.set_defaults(func=cmd_distill)
