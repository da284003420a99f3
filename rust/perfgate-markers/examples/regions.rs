//! regions: a benchmark with perfgate's region markers, as
//! tests/progs/regions.c is for C.
//!
//!     regions OUTSIDE INSIDE
//!
//! Touches OUTSIDE fresh pages before the region and again after it, and
//! INSIDE fresh pages in it: one page fault and a fixed number of
//! instructions each. Counted between the markers: INSIDE pages only.
use std::os::raw::{c_int, c_long, c_void};

extern "C" {
    fn mmap(addr: *mut c_void, len: usize, prot: c_int, flags: c_int, fd: c_int, off: c_long) -> *mut c_void;
    fn munmap(addr: *mut c_void, len: usize) -> c_int;
    fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
}

const PROT_READ_WRITE: c_int = 0x1 | 0x2;
const MAP_PRIVATE_ANONYMOUS: c_int = 0x02 | 0x20;
const MADV_NOHUGEPAGE: c_int = 15;
const PAGE: usize = 4096;

/// n fresh pages, each written once: one page fault per page.
fn touch_pages(n: usize) {
    if n == 0 {
        return;
    }
    let len = n * PAGE;
    unsafe {
        let p = mmap(std::ptr::null_mut(), len, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0);
        assert!(p as isize != -1, "mmap failed");
        madvise(p, len, MADV_NOHUGEPAGE); // a huge page would take 512 pages in one fault
        for i in 0..n {
            std::ptr::write_volatile((p as *mut u8).add(i * PAGE), 1);
        }
        munmap(p, len);
    }
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("a number of pages")).collect();
    let [outside, inside] = args[..] else {
        eprintln!("usage: regions OUTSIDE INSIDE");
        std::process::exit(2);
    };
    touch_pages(outside);
    perfgate_markers::start();
    touch_pages(inside);
    perfgate_markers::stop();
    touch_pages(outside);
    println!("regions: {outside} outside, {inside} inside");
}
