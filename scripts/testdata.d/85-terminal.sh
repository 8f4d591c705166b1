# Names that carry what a terminal acts on (escape sequences, newlines, bidi overrides, bytes that are not
# UTF-8) and names too long for a file system, in every place a file holds a name objllvm prints or writes:
# yaml2obj-22 lays out the ELF object, the script edits the bytes YAML cannot hold and builds a BSD archive.
rm -rf "$TD/terminal"
python3 "$SRC/terminal/make-hostile.py" "$TD/terminal"
