// A small Rust program for rustc's (LLVM 22) version-5 basic-block address maps.
#[inline(never)]
fn step(x: u64) -> u64 {
    if x % 2 == 0 { x / 2 } else { 3 * x + 1 }
}

#[inline(never)]
fn collatz(mut x: u64) -> u32 {
    let mut n = 0;
    while x != 1 {
        x = step(x);
        n += 1;
    }
    n
}

#[inline(never)]
fn pick(k: u32, v: u64) -> u64 {
    match k % 5 {
        0 => collatz(v) as u64,
        1 => step(v),
        2 => v.wrapping_mul(31),
        3 => step(v + 1) + 2,
        _ => v,
    }
}

fn main() {
    let a = std::env::args().count() as u64;
    let mut s = 0u64;
    for k in 0..10 {
        s = s.wrapping_add(pick(k, a + 26 + k as u64));
    }
    std::process::exit((s & 1) as i32);
}
