"""The game viewer's short seat labels (:func:`haggis_sim.counterfactual.game_view.seat_labels`)."""

from __future__ import annotations

import pytest

from haggis_sim.counterfactual.game_view import seat_labels

MCTS = "mcts:iters=100,c=1.4,rollout=greedy,determinize=8"
HEUR = "heuristic:bet=0.55,big=0.6,baby=0.5,bomb=late"


@pytest.mark.parametrize(
    ("specs", "labels"),
    [
        ([HEUR, MCTS], ["heuristic", "mcts"]),  # different names: the names
        ([MCTS, MCTS.replace("iters=100", "iters=400")], ["mcts:iters=100", "mcts:iters=400"]),
        ([MCTS, MCTS, HEUR], ["mcts", "mcts", "heuristic"]),  # the same spec twice: alike
        (["greedy", MCTS, "mcts"], ["greedy", "mcts:iters=100,c=1.4,rollout=greedy,"
                                    "determinize=8", "mcts"]),  # one spec with what the other lacks
        ([HEUR.replace("bomb=late", "bomb=early"), HEUR, "greedy"],
         ["heuristic:bomb=early", "heuristic:bomb=late", "greedy"]),
    ],
)  # fmt: skip
def test_each_seat_is_named_by_what_tells_it_apart(specs: list[str], labels: list[str]) -> None:
    assert seat_labels(specs) == labels


def test_specs_the_short_form_cannot_tell_apart_stay_whole() -> None:
    specs = ["mcts:iters=100,c=1.4", "mcts:c=1.4,iters=100,"]  # alike but differently written
    assert seat_labels(specs) == specs
