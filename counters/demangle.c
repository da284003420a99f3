/* counters/demangle.c — __cxa_demangle found at run time. See demangle.h. */
#include "counters/demangle.h"

#include <ctype.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

static cxa_demangle_fn demangler;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    /* Already in the process (a C++ program linked us)? Else load it privately.
     * The handle is kept for the life of the process on purpose. */
    void *sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    if (!sym) {
        void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        if (h)
            sym = dlsym(h, "__cxa_demangle");
    }
    demangler = (cxa_demangle_fn)sym;
}

int pg_demangle_available(void)
{
    pthread_once(&once, load);
    return demangler != NULL;
}

/* "::h" + 16 hex digits at the end: a Rust legacy hash. */
static void strip_rust_hash(char *s)
{
    size_t n = strlen(s);
    if (n < 19 || memcmp(s + n - 19, "::h", 3))
        return;
    for (size_t i = n - 16; i < n; i++)
        if (!isxdigit((unsigned char)s[i]))
            return;
    s[n - 19] = '\0';
}

/* Rust legacy escapes inside identifiers: $LT$ -> <, $u20$ -> ' ', ".." -> "::". */
static void rust_unescape(char *s)
{
    static const struct { const char *from, *to; } esc[] = {
        {"$SP$", "@"}, {"$BP$", "*"}, {"$RF$", "&"}, {"$LT$", "<"}, {"$GT$", ">"},
        {"$LP$", "("}, {"$RP$", ")"}, {"$C$", ","}, {"$u20$", " "}, {"$u22$", "\""},
        {"$u27$", "'"}, {"$u2b$", "+"}, {"$u3b$", ";"}, {"$u5b$", "["}, {"$u5d$", "]"},
        {"$u7b$", "{"}, {"$u7d$", "}"}, {"$u7e$", "~"},
    };
    char *w = s;
    for (const char *r = s; *r;) {
        size_t k = 0, n = sizeof esc / sizeof *esc;
        if (*r == '$') {
            for (; k < n; k++) {
                size_t l = strlen(esc[k].from);
                if (!strncmp(r, esc[k].from, l)) {
                    size_t tl = strlen(esc[k].to);
                    memmove(w, esc[k].to, tl);   /* never longer than what it replaces */
                    w += tl;
                    r += l;
                    break;
                }
            }
            if (k < n)
                continue;
        }
        if (r[0] == '.' && r[1] == '.') {
            *w++ = ':';
            *w++ = ':';
            r += 2;
            continue;
        }
        /* "_$" starts an identifier that begins with an escape */
        if (r[0] == '_' && r[1] == '$' && (r == s || r[-1] == ':')) {
            r++;
            continue;
        }
        *w++ = *r++;
    }
    *w = '\0';
}

char *pg_demangle(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s", name);
    if (strncmp(name, "_Z", 2) || !pg_demangle_available())
        return out;
    int status = 0;
    char *d = demangler(name, NULL, NULL, &status);
    if (status == 0 && d) {
        snprintf(out, len, "%s", d);
        /* Only Rust legacy names end in 17h<hash>E; stripping "::h<hex>" from a C++
         * name would need a C++ function really named like that. */
        if (strstr(name, "17h") && name[strlen(name) - 1] == 'E') {
            size_t before = strlen(out);
            strip_rust_hash(out);
            if (strlen(out) != before)
                rust_unescape(out);
        }
    }
    free(d);
    return out;
}
