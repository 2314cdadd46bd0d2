"""sb3-contrib's MaskablePPO on the Gymnasium env, without wrappers: does it run, how fast.

Run: ``python benchmarks/bench_maskable_ppo.py [--steps 8192]`` in an environment with
the ``rl-train`` extra (``pip install -e '.[rl-train]'``: sb3-contrib, which brings
PyTorch; not part of the test install). It makes the env with ``gymnasium.make`` on its
registered id (legal-slot actions, 2 players, greedy opponent), hands it to
``MaskablePPO("MultiInputPolicy", env)`` as it is (MaskablePPO finds the env's
``action_masks()``), learns ``--steps`` agent steps on one core, and prints the
policy's size, the time per step, and the masked policy's games won against greedy in
``--eval-games`` games (deterministic actions, deals it did not train on). A check that
the library conventions hold, not a trained player: for that see
``bench_rl_baseline.py``. The table goes to ``benchmarks/results/bench_maskable_ppo.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from _results import add_out_option, one_core, recorded

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=8192)
    parser.add_argument("--eval-games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    add_out_option(parser, "bench_maskable_ppo")
    args = parser.parse_args()
    one_core()
    try:
        import torch
        from sb3_contrib import MaskablePPO
        from sb3_contrib.common.maskable.utils import get_action_masks
    except ImportError as exc:
        raise SystemExit(
            f"error: {exc}: install the rl-train extra (pip install -e '.[rl-train]')"
        ) from None
    torch.set_num_threads(1)
    with recorded(args.out):
        measure(args, MaskablePPO, get_action_masks)


def measure(args: argparse.Namespace, maskable_ppo: type, get_action_masks: object) -> None:
    import gymnasium
    import sb3_contrib
    import stable_baselines3
    import torch

    import haggis_sim.env  # noqa: F401  (registers the id)
    from haggis_sim.env import ENV_ID

    env = gymnasium.make(f"haggis_sim.env:{ENV_ID}", opponents=["greedy"], players=2)
    model = maskable_ppo("MultiInputPolicy", env, seed=args.seed, verbose=0, n_steps=2048)
    weights = sum(p.numel() for p in model.policy.parameters())
    t0 = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    seconds = time.perf_counter() - t0
    won = 0
    base = env.unwrapped
    for game in range(args.eval_games):
        obs, _ = env.reset(seed=1, options={"game_id": game})
        done = False
        while not done:
            mask = get_action_masks(env)  # type: ignore[operator]
            action, _ = model.predict(obs, action_masks=mask, deterministic=True)
            obs, _, done, _, info = env.step(int(action))
        won += int(info["winner"] == base.seat)
    print(
        f"sb3-contrib {sb3_contrib.__version__}, stable-baselines3 "
        f"{stable_baselines3.__version__}, torch {torch.__version__} (one thread). "
        f'`MaskablePPO("MultiInputPolicy", gymnasium.make("haggis_sim.env:{ENV_ID}", '
        'opponents=["greedy"], players=2))`, no wrapper, n_steps 2048, seed '
        f"{args.seed}.\n"
    )
    print("| policy weights | agent steps learned | seconds | steps/s | games won vs greedy |")
    print("|---:|---:|---:|---:|---:|")
    print(
        f"| {weights:,} | {args.steps:,} | {seconds:.0f} | {args.steps / seconds:,.0f} | "
        f"{won} of {args.eval_games} |"
    )


if __name__ == "__main__":
    main()
