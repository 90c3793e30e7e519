"""``python -m train.battle``: the self-play with SB3, :mod:`train.battle.sb3`."""

from train.battle.sb3 import main

raise SystemExit(main())
