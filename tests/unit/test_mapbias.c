/* Load biases from program headers (counters/elffile.h, pg_elffile_map_bias)
 * on the layouts real linkers write: the PT_LOAD tables below are readelf -lW
 * of one small C program (and of a Rust program) linked by each. A wrong
 * bias names every frame of the program wrongly, so each case checks the
 * address a function is linked at against where the loader put it. */
#include "counters/elffile.h"
#include "tests/check.h"

#include <elf.h>
#include <stdint.h>
#include <sys/mman.h>

#define RX (PROT_READ | PROT_EXEC)
#define R_ PF_R
#define RE (PF_R | PF_X)
#define RW (PF_R | PF_W)

/* The bias of a mapping of `segs` made at `start` from `pgoff`. */
static uint64_t bias_of(pg_elfseg *segs, size_t n, uint64_t start, uint64_t pgoff, unsigned prot)
{
    pg_elffile f = {.ok = 1, .segs = segs, .nsegs = n};
    uint64_t bias = 0xdead;
    CHECK(pg_elffile_map_bias(&f, start, pgoff, prot, &bias) == 0);
    return bias;
}

int main(void)
{
    const uint64_t base = 0x555555554000ull;    /* where the loader put a PIE (ASLR off) */

    /* GNU ld, -z separate-code (Debian's default): code at p_vaddr == p_offset. */
    pg_elfseg bfd[] = {{0x0, 0x650, 0x0, 0x650, R_}, {0x1000, 0x239, 0x1000, 0x239, RE},
                       {0x2000, 0x114, 0x2000, 0x114, R_}, {0x3dd0, 0x258, 0x2dd0, 0x250, RW}};
    CHECK_EQ_INT(bias_of(bfd, 4, base + 0x1000, 0x1000, RX), base);

    /* GNU ld -z noseparate-code and gold: one R E segment from offset 0; the RW
     * one starts in the same file page. */
    pg_elfseg bfd_nosep[] = {{0x0, 0x934, 0x0, 0x934, RE}, {0x1dd0, 0x258, 0xdd0, 0x250, RW}};
    CHECK_EQ_INT(bias_of(bfd_nosep, 2, base, 0, RX), base);
    CHECK_EQ_INT(bias_of(bfd_nosep, 2, base + 0x1000, 0, PROT_READ | PROT_WRITE), base);

    /* lld, a small PIE: headers and code share file page 0; the code is linked
     * 0x1000 above its file offset. The executable mapping is the code's. */
    pg_elfseg lld[] = {{0x0, 0x68c, 0x0, 0x68c, R_}, {0x1690, 0x230, 0x690, 0x230, RE},
                       {0x28c0, 0x1d8, 0x8c0, 0x1d8, RW}, {0x3a98, 0x41, 0xa98, 0x40, RW}};
    CHECK_EQ_INT(bias_of(lld, 4, base + 0x1000, 0, RX), base);
    CHECK_EQ_INT(bias_of(lld, 4, base, 0, PROT_READ), base);             /* the headers' mapping */
    CHECK_EQ_INT(bias_of(lld, 4, base + 0x2000, 0, PROT_READ | PROT_WRITE), base);

    /* lld, not PIE: linked at 0x200000, loaded there, bias 0. */
    pg_elfseg lld_exec[] = {{0x200000, 0x5dc, 0x0, 0x5dc, R_}, {0x2015e0, 0x220, 0x5e0, 0x220, RE},
                            {0x202800, 0x1a0, 0x800, 0x1a0, RW}};
    CHECK_EQ_INT(bias_of(lld_exec, 3, 0x201000, 0, RX), 0);

    /* rustc 1.95 with its own lld: code at file offset 0x131b0, linked at 0x141b0;
     * its mapping starts at file page 0x13000, inside the headers segment. */
    pg_elfseg rust[] = {{0x0, 0x131b0, 0x0, 0x131b0, R_}, {0x141b0, 0x3e140, 0x131b0, 0x3e140, RE},
                        {0x532f0, 0x2d10, 0x512f0, 0x27f0, RW}};
    CHECK_EQ_INT(bias_of(rust, 3, base + 0x14000, 0x13000, RX), base);

    /* mold: like lld, with the RW segment in the code's last page. */
    pg_elfseg mold[] = {{0x0, 0x5bd, 0x0, 0x5bd, R_}, {0x15c0, 0x247, 0x5c0, 0x247, RE},
                        {0x2808, 0x7f8, 0x808, 0x220, RW}};
    CHECK_EQ_INT(bias_of(mold, 3, base + 0x1000, 0, RX), base);

    /* A mapping that starts inside the code segment (made by the program, not the loader). */
    pg_elfseg big[] = {{0x0, 0x131b0, 0x0, 0x131b0, R_}, {0x141b0, 0x3e140, 0x131b0, 0x3e140, RE}};
    CHECK_EQ_INT(bias_of(big, 2, base + 0x20000, 0x1f000, RX), base);

    /* A mapping of no segment's bytes. */
    pg_elffile f = {.ok = 1, .segs = big, .nsegs = 2};
    uint64_t b;
    CHECK(pg_elffile_map_bias(&f, base, 0x100000, RX, &b) < 0);
    return pg_check_done();
}
