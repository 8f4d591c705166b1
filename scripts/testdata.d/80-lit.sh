# LLVM's own lit inputs (testdata/src/lit/*.yaml, the YAML documents of llvm/test/tools/llvm-readobj/ELF and
# obj2yaml tests; testdata/src/lit/cases.txt says which document, which -D values, which llvm-readobj option):
# each built by yaml2obj-22 into testdata/lit/NAME.o, and llvm-readobj-22's output recorded beside it in
# testdata/lit/NAME.json (JSON style and text style, its warnings with the file name as {path}, its exit
# status).  tests/test_lit_readobj.py compares objllvm with the recording (no LLVM tool needed then).
python3 - "$SRC/lit" "$TD/lit" <<'PY'
import json, os, re, subprocess, sys
src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
for old in os.listdir(out):
    if old.endswith((".o", ".json")):
        os.unlink(os.path.join(out, old))
n = 0
for line in open(os.path.join(src, "cases.txt")):
    if not line.strip() or line.startswith("#"):
        continue
    name, yaml, doc, defines, option = line.split()
    args = ["yaml2obj-22", f"--docnum={doc}", os.path.join(src, yaml), "-o", os.path.join(out, name + ".o")]
    if defines != "-":
        args += [f"-D{d}" for d in defines.split(",")]
    rec = {"case": name, "source": yaml, "docnum": int(doc), "defines": defines, "option": option}
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode:
        rec["yaml2obj_error"] = p.stderr.strip().splitlines()[-1]
    else:
        for style in ("JSON", "LLVM"):
            r = subprocess.run(["llvm-readobj-22", f"--elf-output-style={style}", option, name + ".o"], cwd=out,
                               capture_output=True, text=True)
            key = style.lower() if style == "JSON" else "text"
            rec[key] = r.stdout
            rec[key + "_exit"] = r.returncode
            # (llvm-readobj-22 prints a section index computed from a null pointer when there is no symbol
            # table, "[index -1467878326007]", different in every run: kept deterministic as "[index ?]")
            rec[key + "_stderr"] = [re.sub(r"\[index -\d+\]", "[index ?]", ln.replace(f"'{name}.o'", "'{path}'"))
                                    for ln in r.stderr.splitlines()]
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(rec, f, indent=1, sort_keys=True)
        f.write("\n")
    n += 1
print(f"{n} lit cases in {out}")
PY
