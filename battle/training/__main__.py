"""``python -m battle.training``: the self-play with SB3, :mod:`battle.training.sb3`."""

from battle.training.sb3 import main

raise SystemExit(main())
