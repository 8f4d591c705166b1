// Rust producer for the profile and coverage tests (rustc -C instrument-coverage).
fn classify(a: i32, b: i32) -> i32 {
    if a > 0 && b > 0 {
        1
    } else if a < 0 || b < 0 {
        -1
    } else {
        0
    }
}

fn sum_to(n: i32) -> i32 {
    let mut s = 0;
    for i in 0..n {
        s += i.clamp(1, 5);
    }
    s
}

#[inline(never)]
fn unused(x: i32) -> i32 {
    x + 1
}

fn main() {
    let n = std::env::args().count() as i32 + 3;
    let r = classify(n, 2) + classify(-n, 2) + sum_to(n);
    if r < 0 {
        println!("{}", unused(r));
    }
    std::process::exit(if r > 0 { 0 } else { 1 });
}
