"""Section codecs: one module per section kind, each registering itself (see objllvm.sections.registry); shared helpers in support/."""
