# perf-map loop area (tests/test_perf_loop.py): a C++ program with a hot shared library, both with basic-block
# maps; its GNU-stripped copy and the debug file split off it; recordings with two events and in perf's pipe
# mode; the symbol names of real C++ and Rust binaries (legacy and v0 mangling), the demangler's oracle input.
out="$TD/perf-loop"; src="$SRC/perf-loop"
mkdir -p "$out"
CXX=${CXX22:-clang++-22}
# Block hashes (-emit-bb-hash) let perf-diff match the blocks of two builds; line tables give the report its
# source lines.
flags="-O2 -gline-tables-only -fbasic-block-address-map -mllvm -emit-bb-hash -Wl,--build-id=sha1"
$CXX $flags -fPIC -shared "$src/libhot.cpp" -o "$out/libhot.so"
$CXX $flags -fPIE -pie "$src/hot.cpp" -L"$out" -lhot -Wl,-rpath,'$ORIGIN' -o "$out/hot"
# GNU strip keeps the (unknown to it) SHT_LLVM_BB_ADDR_MAP section and drops .symtab: blocks without names.
# The debug file keeps the symbols; .gnu_debuglink in the stripped copy names it.
# (The debug file is not kept: objcopy makes the same bytes again from hot, as the tests do in a temporary
# build-id tree; llvm-readobj, the oracle of the corpus tests, warns on a debug file's NOBITS .dynamic.)
tmpd=$(mktemp -d)
objcopy --only-keep-debug "$out/hot" "$tmpd/hot.debug"
strip -o "$out/hot.stripped" "$out/hot"
(cd "$tmpd" && objcopy --add-gnu-debuglink=hot.debug "$out/hot.stripped")
rm -rf "$tmpd"
# Recordings (software events: they work without hardware counters).
if perf record -q -e cpu-clock -o /dev/null -- true 2>/dev/null; then
  # Two events in one recording; samples in hot and in libhot.so.
  perf record -q -e cpu-clock,task-clock -c 100000 -o "$out/two-events.data" -- "$out/hot" 3000 >/dev/null
  # Pipe mode, uncompressed: the header has no sections, the attributes come as HEADER_ATTR records.
  perf record -q -e cpu-clock -c 100000 -o - -- "$out/hot" 1500 2>/dev/null > "$out/pipe.data"
  # perf's own per-event, per-object counts: the oracle of the event and whole-process tests.
  perf report -i "$out/two-events.data" --stdio --sort dso -F overhead,sample,dso 2>/dev/null \
    | grep -v '^#' | sed '/^$/d' > "$out/two-events.report.txt"
  perf script -i "$out/two-events.data" -F event,ip,dso 2>/dev/null \
    | awk '{print $1, $3}' | LC_ALL=C sort | uniq -c > "$out/two-events.script.txt"
  perf script -i "$out/pipe.data" -F pid,ip 2>/dev/null | LC_ALL=C sort | uniq -c > "$out/pipe.perf-script.txt"
  # The layout step and its evidence: the clusters perf-map writes from the cpu-clock samples, the program
  # rebuilt with them (hot-layout), a recording of it, and perf's per-symbol counts of both runs (perf-diff's
  # oracle: `perf script -F event,ip,sym,symoff`).
  PYTHONPATH="$ROOT" python3 -m objllvm perf-map --event cpu-clock "$out/hot" "$out/two-events.data" \
    --clusters "$out/hot.clusters.txt" >/dev/null
  sed -i '/^#/d' "$out/hot.clusters.txt"
  $CXX $flags -fPIE -pie -fbasic-block-sections=list="$out/hot.clusters.txt" "$src/hot.cpp" -L"$out" -lhot \
    -Wl,-rpath,'$ORIGIN' -o "$out/hot-layout"
  perf record -q -e cpu-clock -c 100000 -o "$out/layout.data" -- "$out/hot-layout" 3000 >/dev/null
  for d in two-events layout; do
    perf script --no-demangle -i "$out/$d.data" -F event,ip,sym,symoff,dso 2>/dev/null \
      | awk '{print $1, $3, $4}' | LC_ALL=C sort | uniq -c > "$out/$d.sym.txt"
  done
else
  echo "62-perf-loop: perf record is not permitted here: recordings not remade" >&2
fi
# A Rust program with a basic-block map (v0 mangling), recorded, and perf's own per-symbol counts of it: the
# oracle of perf-map's Rust names (tests/test_perf_loop.py).
if command -v rustc >/dev/null && perf record -q -e cpu-clock -o /dev/null -- true 2>/dev/null; then
  rustc -C opt-level=2 -C symbol-mangling-version=v0 -C llvm-args=-basic-block-address-map -C strip=debuginfo \
    -C panic=abort -C lto=fat -C codegen-units=1 -C link-arg=-Wl,--build-id=sha1 "$src/demo.rs" -o "$out/rust-demo"
  perf record -q -e cpu-clock -c 100000 -o "$out/rust-demo.data" -- "$out/rust-demo" 20000 >/dev/null
  perf report -i "$out/rust-demo.data" --stdio --no-demangle --sort dso,sym -F sample,dso,sym 2>/dev/null \
    | grep -v '^#' | sed '/^$/d' > "$out/rust-demo.report.txt"
fi
rm -f "$out"/*.data.old
# Every symbol name of a real C++ binary and of a Rust program built with each mangling scheme.
nm -j "$out/hot" "$out/libhot.so" 2>/dev/null | LC_ALL=C sort -u > "$out/symbols-cxx.txt" || \
  nm "$out/hot" "$out/libhot.so" | awk 'NF>=2{print $NF}' | LC_ALL=C sort -u > "$out/symbols-cxx.txt"
if command -v rustc >/dev/null; then
  tmp=$(mktemp -d)
  for scheme in legacy v0; do
    extra=""; [ $scheme = legacy ] && extra="-Z unstable-options"
    RUSTC_BOOTSTRAP=1 rustc -C opt-level=2 -C symbol-mangling-version=$scheme $extra "$src/demo.rs" -o "$tmp/demo-$scheme"
    nm "$tmp/demo-$scheme" | awk 'NF>=2{print $NF}' | LC_ALL=C sort -u > "$out/symbols-rust-$scheme.txt"
  done
  rm -rf "$tmp"
fi
ls -l "$out"
