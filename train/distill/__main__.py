"""``python -m train.distill``: the distillation in rounds, :mod:`train.distill.rounds`."""

import sys

from train.distill.rounds import main

sys.exit(main())
