//! `rinline [N]`: one `#[inline(never)]` function, `hot`, whose work is all
//! inlined calls: two free functions (`score`, which calls `scramble`) and a
//! method (`Acc::add`). Built with `rustc -O -g`, every instruction of the
//! loop belongs to an inlined call, so a profile that shows only `hot` has
//! lost the frames `addr2line -i` reads from the DWARF. For
//! tests/e2e/rust_inline.sh.
use std::hint::black_box;

struct Acc {
    h: u64,
}

impl Acc {
    #[inline(always)]
    fn add(&mut self, x: u64) {
        let mut v = x;
        for _ in 0..8 {
            v = v.rotate_left(7) ^ 0x1234_5678;
            v = v.wrapping_mul(0x2545_f491_4f6c_dd1d);
        }
        self.h = self.h.wrapping_add(v);
    }
}

#[inline(always)]
fn scramble(x: u64) -> u64 {
    let mut h = x;
    for i in 0..24 {
        h = (h ^ i).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(23);
    }
    h
}

#[inline(always)]
fn score(x: u64) -> u64 {
    scramble(x) ^ (x >> 3)
}

#[inline(never)]
fn hot(n: u64) -> u64 {
    let mut a = Acc { h: 0 };
    let mut s = 0u64;
    for i in 0..n {
        s ^= score(black_box(i));
        a.add(black_box(s));
    }
    s ^ a.h
}

fn main() {
    let n: u64 = match std::env::args().nth(1) {
        Some(s) => s.parse().expect("N: a whole number"),
        None => 30_000_000,
    };
    println!("{}", hot(n) & 0xff);
}
