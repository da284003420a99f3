//! `rtable`: `hot`, a loop of exactly known cost (ROUNDS is what
//! tests/e2e/sample_table.sh changes), and `tally`, which counts words in a
//! std HashMap: its RandomState takes new keys from the OS every run, so the
//! instructions it takes move by thousands from one run to the next, under
//! cachegrind and callgrind alike (as a program that hashes, reads the clock
//! or its own addresses does).
use std::collections::HashMap;
use std::hint::black_box;

const ROUNDS: u64 = 40;

#[inline(never)]
fn hot(n: u64) -> u64 {
    let mut h = 0u64;
    for i in 0..n * ROUNDS {
        h = (h ^ black_box(i)).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }
    h
}

#[inline(never)]
fn tally(n: u64) -> usize {
    let mut m: HashMap<u64, u32> = HashMap::new();
    for i in 0..n {
        *m.entry(i.wrapping_mul(0x2545_f491) % 5000).or_insert(0) += 1;
    }
    m.len()
}

fn main() {
    let h = hot(50_000);
    let t = tally(40_000);
    println!("{} {}", h & 0xff, t);
}
