//! `rwork [SCALE]`: three kinds of work in known proportions, for perfgate's
//! tests to find by name. `SCALE` (default 100) multiplies all of it; about
//! 0.01 s per unit of scale natively.
//!
//!   rwork::hash_all -> rwork::mix             nested #[inline(never)] functions, ~50%
//!   rwork::walk::<u32>                        a generic, ~30%
//!   rwork::main::{closure#0} (v0 mangling)    a closure called through `dyn Fn`, ~20%
//!   rwork::main::{{closure}} (legacy)
//!
//! The round count of `mix` is MIX_ROUNDS: the tests change it to make a
//! commit that slows `mix` alone.
use std::hint::black_box;

const MIX_ROUNDS: u64 = 32;

#[inline(never)]
fn mix(x: u64) -> u64 {
    let mut h = x;
    for i in 0..MIX_ROUNDS {
        h = (h ^ i).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(23);
    }
    h
}

#[inline(never)]
fn hash_all(n: u64) -> u64 {
    let mut acc = 0;
    for i in 0..n {
        acc ^= mix(black_box(i));
    }
    acc
}

#[inline(never)]
fn walk<T: Copy + Into<u64>>(v: &[T], rounds: u64) -> u64 {
    let mut s = 0u64;
    for r in 0..rounds {
        for &x in v {
            s = s.wrapping_mul(31).wrapping_add(x.into() ^ r);
        }
    }
    s
}

fn main() {
    // (no closure here: the one below is main's first, {closure#0})
    let scale: u64 = match std::env::args().nth(1) {
        Some(s) => s.parse().expect("SCALE: a whole number"),
        None => 100,
    };
    let v: Vec<u32> = (0..4096u32).collect();
    let step = |k: u64| -> u64 {
        let mut x = k | 1;
        for _ in 0..k {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        x
    };
    // Called through a trait object kept opaque, so the closure stays a
    // function of its own and is not inlined into main.
    let f: &dyn Fn(u64) -> u64 = black_box(&step);
    let a = hash_all(scale * 240_000);
    let b = walk(&v, scale * 900);
    let c = f(scale * 1_200_000);
    println!("{}", (a ^ b ^ c) & 0xff);
}
