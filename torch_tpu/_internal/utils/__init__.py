"""torch_tpu._internal.utils: device facts Helion's Pallas launcher asks for (see torch_tpu)."""
