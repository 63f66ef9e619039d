"""python -m torch.tpu.distributed (or python -m torchtpu.distributed): prints
the launch variables to export before torchrun."""
import sys

from torchtpu.distributed._launch import main

sys.exit(main())
