// A tiny Rust library: its .rlib carries .llvmbc from rustc's LLVM.
#![no_std]
pub static ANSWER: u32 = 42;
#[no_mangle]
pub extern "C" fn rust_add(a: u32, b: u32) -> u32 { a.wrapping_add(b).wrapping_add(ANSWER) }
#[inline(never)]
pub fn rust_twice(x: u64) -> u64 { x.wrapping_mul(2) }
