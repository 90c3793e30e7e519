"""``python -m agents.warm_up``: compile and cache every kernel ahead, the solver's two paths and the battle AIs'
(the install step's last command)."""

from agents.warm_up import PATHS, warm_up
from battle.players.warm_up import warm_up_battle

seconds = warm_up(PATHS) + warm_up_battle()
print(f"the solver's and the battle AIs' kernels are compiled and cached ({seconds:.1f} s)")
