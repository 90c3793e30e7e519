"""``python -m train.distill.rounds``: the distillation in rounds, :mod:`train.distill.rounds.run`."""

import sys

from train.distill.rounds.run import main

sys.exit(main())
