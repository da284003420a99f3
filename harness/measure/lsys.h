/* harness/measure/lsys.h — the few system calls the launcher and the
 * watchdog make, each returning its result or -errno (the kernel's own
 * convention). launch/perfgate-launch.c is both (harness/measure/watchdog.h).
 *
 * Why not the C library: the launcher runs once for every measured run of
 * every benchmark, and a static glibc program spends most of its short life
 * starting up: init_cpu_features asks the CPU about itself with some twenty
 * CPUID instructions, each a trap to the hypervisor in a VM (about 0.2 ms a
 * process on the VM of issue 41), then sets up TLS and stdio, and its larger
 * image costs page faults at start and at exit. On x86-64 and aarch64 the
 * launcher is built with -nostdlib (PG_LAUNCH_NOLIBC, CMakeLists.txt): its
 * own _start and raw system calls, a few pages in all. Elsewhere these are
 * the C library's calls. */
#ifndef PG_HARNESS_LSYS_H
#define PG_HARNESS_LSYS_H

#include <stddef.h>
#include <fcntl.h>          /* AT_FDCWD, AT_REMOVEDIR, O_*: constants */
#include <sys/resource.h>   /* struct rusage: glibc's layout is the kernel's */
#include <time.h>           /* struct timespec */

#ifdef PG_LAUNCH_NOLIBC
#include <asm/unistd.h>
#include <signal.h>         /* SIGCHLD: a constant, no code of the library */

#if defined(__x86_64__)
static inline long lsys6(long n, long a, long b, long c, long d, long e, long f)
{
    register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return ret;
}
/* The entry point: the kernel leaves argc, argv..., NULL, envp..., NULL at %rsp. */
__asm__(".text\n.global _start\n.type _start,@function\n_start:\n"
        "\txor %ebp, %ebp\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n\tcall pg_launch_start\n\thlt\n");
#elif defined(__aarch64__)
static inline long lsys6(long n, long a, long b, long c, long d, long e, long f)
{
    register long x8 __asm__("x8") = n, x0 __asm__("x0") = a, x1 __asm__("x1") = b, x2 __asm__("x2") = c,
                  x3 __asm__("x3") = d, x4 __asm__("x4") = e, x5 __asm__("x5") = f;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory", "cc");
    return x0;
}
__asm__(".text\n.global _start\n.type _start,%function\n_start:\n"
        "\tmov x29, #0\n\tmov x30, #0\n\tmov x0, sp\n\tbl pg_launch_start\n\tbrk #0\n");
#else
#error "PG_LAUNCH_NOLIBC: no system call stub for this architecture (CMakeLists.txt builds the C library's launcher here)"
#endif

#define LSYS(n, a, b, c, d) lsys6(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

static inline long lsys_read(int fd, void *p, size_t n) { return LSYS(__NR_read, fd, p, n, 0); }
static inline long lsys_write(int fd, const void *p, size_t n) { return LSYS(__NR_write, fd, p, n, 0); }
static inline long lsys_close(int fd) { return LSYS(__NR_close, fd, 0, 0, 0); }
static inline long lsys_fcntl(int fd, int cmd, long arg) { return LSYS(__NR_fcntl, fd, cmd, arg, 0); }
static inline long lsys_getpid(void) { return LSYS(__NR_getpid, 0, 0, 0, 0); }
static inline long lsys_getppid(void) { return LSYS(__NR_getppid, 0, 0, 0, 0); }
static inline long lsys_prctl(int op, long arg) { return LSYS(__NR_prctl, op, arg, 0, 0); }
static inline long lsys_open(const char *path, int flags) { return LSYS(__NR_openat, AT_FDCWD, path, flags, 0); }
static inline long lsys_rmdir(const char *path) { return LSYS(__NR_unlinkat, AT_FDCWD, path, AT_REMOVEDIR, 0); }
static inline long lsys_exists(const char *path) { return LSYS(__NR_faccessat, AT_FDCWD, path, 0, 0); }
static inline long lsys_kill(int pid, int sig) { return LSYS(__NR_kill, pid, sig, 0, 0); }
static inline long lsys_nanosleep(struct timespec *ts) { return LSYS(__NR_nanosleep, ts, ts, 0, 0); }
static inline long lsys_pread(int fd, void *p, size_t n, long off) { return LSYS(__NR_pread64, fd, p, n, off); }
/* fork as clone(SIGCHLD): aarch64 has no fork system call. Not CLONE_VM: the
 * child runs on its own copy of this stack, and nothing here caches a pid. */
static inline long lsys_fork(void) { return LSYS(__NR_clone, SIGCHLD, 0, 0, 0); }
static inline long lsys_execve(const char *path, char *const argv[], char *const envp[])
{
    return LSYS(__NR_execve, path, argv, envp, 0);
}
static inline long lsys_wait4(int pid, int *status, int options, struct rusage *ru)
{
    return LSYS(__NR_wait4, pid, status, options, ru);
}
static inline __attribute__((noreturn)) void lsys_exit(int code)
{
    for (;;)
        LSYS(__NR_exit_group, code, 0, 0, 0);
}

/* What the compiler may call for a struct's initialization or copy (volatile:
 * or it would make these loops calls to themselves). */
void *memset(void *d, int c, size_t n);
void *memcpy(void *restrict d, const void *restrict s, size_t n);
void *memset(void *d, int c, size_t n)
{
    for (volatile unsigned char *p = d; n--;)
        *p++ = (unsigned char)c;
    return d;
}
void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
    volatile unsigned char *o = d;
    for (const unsigned char *i = s; n--;)
        *o++ = *i++;
    return d;
}

#else   /* the C library's calls, with its errno turned into -errno */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <unistd.h>

#define LSYS_RET(expr) do { long r_ = (long)(expr); return r_ < 0 ? -errno : r_; } while (0)
static inline long lsys_read(int fd, void *p, size_t n) { LSYS_RET(read(fd, p, n)); }
static inline long lsys_write(int fd, const void *p, size_t n) { LSYS_RET(write(fd, p, n)); }
static inline long lsys_close(int fd) { LSYS_RET(close(fd)); }
static inline long lsys_fcntl(int fd, int cmd, long arg) { LSYS_RET(fcntl(fd, cmd, arg)); }
static inline long lsys_getpid(void) { return getpid(); }
static inline long lsys_getppid(void) { return getppid(); }
static inline long lsys_prctl(int op, long arg) { LSYS_RET(prctl(op, arg, 0L, 0L, 0L)); }
static inline long lsys_open(const char *path, int flags) { LSYS_RET(open(path, flags)); }
static inline long lsys_rmdir(const char *path) { LSYS_RET(rmdir(path)); }
static inline long lsys_exists(const char *path) { LSYS_RET(access(path, F_OK)); }
static inline long lsys_kill(int pid, int sig) { LSYS_RET(kill(pid, sig)); }
static inline long lsys_nanosleep(struct timespec *ts) { LSYS_RET(nanosleep(ts, ts)); }
static inline long lsys_pread(int fd, void *p, size_t n, long off) { LSYS_RET(pread(fd, p, n, off)); }
static inline long lsys_fork(void) { LSYS_RET(fork()); }
static inline long lsys_execve(const char *path, char *const argv[], char *const envp[])
{
    LSYS_RET(execve(path, argv, envp));
}
static inline long lsys_wait4(int pid, int *status, int options, struct rusage *ru)
{
    LSYS_RET(wait4(pid, status, options, ru));
}
static inline __attribute__((noreturn)) void lsys_exit(int code) { _exit(code); }
#endif

#if defined(__x86_64__)
#include <asm/unistd.h>     /* __NR_clone3 */
#include <linux/sched.h>    /* struct clone_args */
#ifdef __NR_clone3
/* clone3(args) with the child on a stack of its own (args->stack,
 * args->stack_size), where it calls fn(arg), which must exec or exit: with
 * CLONE_VM | CLONE_VFORK, a vfork(2) that need not return twice on one
 * stack. The caller gets the pid or -errno. Nothing of the caller's frame
 * is used by the child after the system call: the registers it needs
 * survive it. Raw, in either build: the launcher's and perfgate's
 * (harness/measure/contain.c). */
#define LSYS_HAVE_CLONE3_ON 1
static inline long lsys_clone3_on(struct clone_args *args, void (*fn)(void *), void *arg)
{
    long ret;
    register void (*entry)(void *) __asm__("r12") = fn;
    register void *r13 __asm__("r13") = arg;
    __asm__ volatile("syscall\n\t"
                     "test %%rax, %%rax\n\t"
                     "jnz 1f\n\t"
                     "xor %%ebp, %%ebp\n\t"
                     "mov %%r13, %%rdi\n\t"
                     "call *%%r12\n\t"
                     "hlt\n"
                     "1:"
                     : "=a"(ret)
                     : "0"((long)__NR_clone3), "D"(args), "S"(sizeof *args), "r"(entry), "r"(r13)
                     : "rcx", "r11", "memory", "cc");
    return ret;
}
#endif
#endif

#endif
