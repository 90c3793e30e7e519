"""``python -m train.distill.stream``: the distillation streamed to a GPU, :mod:`train.distill.stream.run`."""

import sys

from train.distill.stream.run import main

sys.exit(main())
