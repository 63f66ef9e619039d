"""torch_tpu._internal: the integration modules inductor and Helion import (see torch_tpu)."""
