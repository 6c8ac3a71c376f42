"""OpenSpiel's hearts at random legal play, the anchor of `cargo bench --bench engine`.

Plays whole deals of `pyspiel.load_game("hearts")` (the pass, every card, every chance node
of the deal) with uniformly random legal actions for SECONDS (default 2) on one core and prints
the deals per second as one number. Exits 3 when pyspiel is not installed (`pip install
open_spiel`), so that the bench can skip the comparison.
"""

import random
import sys
import time

try:
    import pyspiel
except ImportError:
    sys.exit(3)


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    game = pyspiel.load_game("hearts")
    rng = random.Random(1)
    deals = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(rng.choice(outcomes)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        deals += 1
    print(deals / (time.perf_counter() - start))


if __name__ == "__main__":
    main()
