# Malformed corpus: corpus files with one deliberate defect each + the exact errors objllvm must give
# (testdata/malformed/manifest.json).  Built from testdata/elf/ by scripts/make-malformed (Python, struct
# patches, deterministic); run after the foundation fragment.  Crashers found by scripts/fuzz that belong to
# other areas are kept in testdata/malformed/crashers.json and merged into the manifest.
python3 "$ROOT/scripts/make-malformed"
