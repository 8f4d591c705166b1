"""objllvm subcommands: one module each (see objllvm.cli)."""
