import gc

gc.set_threshold(20000, *gc.get_threshold()[1:])     # before the imports too (bin/objllvm says why)

from .cli import run  # noqa: E402

run()
