// The Rust program of the perf-map loop tests: generics, a trait, closures and iterators, so its symbols exercise
// the Rust demangler (built twice: legacy and v0 mangling).  Usage: demo [N]: prints one line that depends on N.
use std::collections::HashMap;

trait Step {
    fn step(&self, x: u64, i: u64) -> u64;
}

struct Mix<const K: u64>;

impl<const K: u64> Step for Mix<K> {
    #[inline(never)]
    fn step(&self, x: u64, i: u64) -> u64 {
        if i % K == 0 { x ^ (x >> 3) } else if i % 5 == 0 { x.wrapping_add(i.wrapping_mul(2654435761)) } else { x.wrapping_mul(31).wrapping_add(i) }
    }
}

#[inline(never)]
fn fold<S: Step>(s: &S, v: &[u64], rounds: u64) -> u64 {
    let mut acc = 0u64;
    for _ in 0..rounds {
        acc = v.iter().fold(acc, |a, &x| if x & 1 == 1 { s.step(a, x) } else { a.wrapping_add(x) });
    }
    acc
}

fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100);
    let v: Vec<u64> = (0..4096u64).map(|i| i * 131 + (i >> 3)).collect();
    let mut words: HashMap<String, u64> = HashMap::new();
    for w in ["a", "b", "a"] {
        *words.entry(w.to_string()).or_default() += 1;
    }
    println!("{} {}", fold(&Mix::<7>, &v, n), words["a"]);
}
