/* tests/progs/nocfi.c — spends its time in a routine written in assembly
 * without CFI directives, so no unwind information covers it (as with a
 * hand-written assembly routine or JIT code): its stacks cannot be unwound
 * past it, however much of the stack a sample copies: `nocfi ITERATIONS`. */
#include <stdio.h>
#include <stdlib.h>

unsigned long spin_nocfi(unsigned long n);
__asm__(".text\n"
        ".globl spin_nocfi\n"
        ".type spin_nocfi, @function\n"
        "spin_nocfi:\n"
        "    mov %rdi, %rax\n"
        "1:  sub $1, %rdi\n"
        "    jnz 1b\n"
        "    ret\n"
        ".size spin_nocfi, .-spin_nocfi\n");

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000000UL;
    printf("%lu\n", spin_nocfi(n ? n : 1) & 0xff);
    return 0;
}
