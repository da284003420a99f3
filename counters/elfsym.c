/* counters/elfsym.c — see elfsym.h. */
#include "counters/elfsym.h"
#include "util/error.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct elfh {
    int fd;
    Elf *elf;
} elfh;

/* 1 opened, 0 not an ELF file, negative when unreadable. */
static int elf_open(elfh *h, const char *path)
{
    h->fd = -1;
    h->elf = NULL;
    if (elf_version(EV_CURRENT) == EV_NONE)
        return pg_error_set(PG_ERROR, "libelf: %s", elf_errmsg(-1));
    h->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (h->fd < 0)
        return pg_error_errno(PG_EIO, "cannot open %s", path);
    h->elf = elf_begin(h->fd, ELF_C_READ_MMAP, NULL);
    if (!h->elf || elf_kind(h->elf) != ELF_K_ELF)
        return 0;
    return 1;
}

static void elf_close(elfh *h)
{
    if (h->elf)
        elf_end(h->elf);
    if (h->fd >= 0)
        close(h->fd);
}

int pg_elfsym_markers(const char *path, unsigned *flags)
{
    elfh h;
    int rc = elf_open(&h, path);
    *flags = 0;
    int found = 0;
    for (Elf_Scn *scn = rc == 1 ? elf_nextscn(h.elf, NULL) : NULL; scn && !found; scn = elf_nextscn(h.elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t off = 0, name_off, desc_off;
        GElf_Nhdr nh;
        while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
            if (nh.n_type == PG_MARKER_NOTE_TYPE && nh.n_namesz == sizeof PG_MARKER_NOTE_NAME &&
                !memcmp((char *)d->d_buf + name_off, PG_MARKER_NOTE_NAME, sizeof PG_MARKER_NOTE_NAME)) {
                uint32_t v = 0;
                if (nh.n_descsz >= 4)
                    memcpy(&v, (char *)d->d_buf + desc_off, 4);
                *flags = v;
                found = 1;
                break;
            }
        }
    }
    elf_close(&h);
    return rc < 0 ? rc : found;
}

/* ---- symbol resolution ---- */

#define MAX_FILES 64

typedef struct search {
    char files[MAX_FILES][PATH_MAX];
    size_t n;
    char runpath[4096], rpath[4096], origin[PATH_MAX];
    const char *ld_library_path;
} search;

/* The file offset of link-time address `vaddr`, through the PT_LOAD holding it. */
static int vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *off)
{
    size_t n;
    if (elf_getphdrnum(elf, &n) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && vaddr >= ph.p_vaddr &&
            vaddr < ph.p_vaddr + ph.p_filesz) {
            *off = vaddr - ph.p_vaddr + ph.p_offset;
            return 0;
        }
    }
    return -1;
}

/* The symbol versions of the dynamic symbols (.gnu.version), or NULL. */
static Elf_Data *versyms(Elf *elf)
{
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym)
            return elf_getdata(scn, NULL);
    }
    return NULL;
}

/* A defined function `name` in the symbol table `scn`: 1 found (*sym), 0 not.
 * Of a versioned name only the default version counts ("memcpy@@GLIBC_2.14",
 * not the hidden "memcpy@GLIBC_2.2.5"): it is what a program links to now. */
static int find_in_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *name, int locals, GElf_Sym *out)
{
    Elf_Data *d = elf_getdata(scn, NULL);
    Elf_Data *vs = sh->sh_type == SHT_DYNSYM ? versyms(elf) : NULL;
    size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
    for (size_t i = 0; d && i < n; i++) {
        GElf_Sym s;
        if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF || s.st_value == 0)
            continue;
        int type = GELF_ST_TYPE(s.st_info), bind = GELF_ST_BIND(s.st_info);
        if (type != STT_FUNC && type != STT_GNU_IFUNC)
            continue;
        if (bind == STB_LOCAL && !locals)
            continue;
        GElf_Versym ver;
        if (vs && gelf_getversym(vs, (int)i, &ver) && (ver & 0x8000))
            continue;   /* a hidden, non-default version */
        const char *sn = elf_strptr(elf, sh->sh_link, s.st_name);
        if (sn && !strcmp(sn, name)) {
            *out = s;
            return 1;
        }
    }
    return 0;
}

static void add_file(search *s, const char *path)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->files[i], path))
            return;
    if (s->n < MAX_FILES)
        snprintf(s->files[s->n++], PATH_MAX, "%s", path);
}

/* Tries `dir`/`lib` for each directory of the ':' list `dirs` ($ORIGIN expanded). */
static int try_dirs(char out[PATH_MAX], const char *dirs, const char *lib, const char *origin)
{
    for (const char *p = dirs; p && *p;) {
        size_t len = strcspn(p, ":");
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%.*s", (int)len, p);
        if (!strncmp(dir, "$ORIGIN", 7) || !strncmp(dir, "${ORIGIN}", 9)) {
            char rest[PATH_MAX];
            snprintf(rest, sizeof rest, "%s", dir + (dir[1] == '{' ? 9 : 7));
            snprintf(dir, sizeof dir, "%s%s", origin, rest);
        }
        if (len && snprintf(out, PATH_MAX, "%s/%s", dir, lib) < PATH_MAX && access(out, R_OK) == 0)
            return 0;
        p += len + (p[len] == ':');
    }
    return -1;
}

typedef struct loaded_ctx {
    const char *lib;
    char *out;
    int found;
} loaded_ctx;

static int loaded_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    loaded_ctx *c = arg;
    const char *base = strrchr(info->dlpi_name, '/');
    if (base && !strcmp(base + 1, c->lib)) {
        snprintf(c->out, PATH_MAX, "%s", info->dlpi_name);
        c->found = 1;
        return 1;
    }
    return 0;
}

/* A DT_NEEDED name to a file, searched as the loader does (ld.so.cache is
 * stood in for by the copy perfgate has loaded itself, then the system
 * directories). */
static int find_lib(char out[PATH_MAX], const search *s, const char *lib)
{
    if (strchr(lib, '/')) {
        snprintf(out, PATH_MAX, "%s", lib);
        return access(out, R_OK);
    }
    if (!s->runpath[0] && try_dirs(out, s->rpath, lib, s->origin) == 0)
        return 0;
    if (try_dirs(out, s->ld_library_path, lib, s->origin) == 0 || try_dirs(out, s->runpath, lib, s->origin) == 0)
        return 0;
    loaded_ctx c = {lib, out, 0};
    dl_iterate_phdr(loaded_cb, &c);
    if (c.found)
        return 0;
    return try_dirs(out, "/lib/" PG_MULTIARCH ":/usr/lib/" PG_MULTIARCH ":/lib64:/usr/lib64:/lib:/usr/lib:/usr/local/lib",
                    lib, s->origin);
}

/* Queues the DT_NEEDED of `elf`; for the program (first file) notes its run paths. */
static void queue_needed(search *s, Elf *elf, int is_exe)
{
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
        for (int pass = 0; pass < 2; pass++)     /* run paths first: NEEDED entries may come before them */
            for (size_t i = 0; d && i < n; i++) {
                GElf_Dyn dyn;
                if (!gelf_getdyn(d, (int)i, &dyn))
                    continue;
                const char *str = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
                if (!str)
                    continue;
                if (pass == 0 && is_exe && dyn.d_tag == DT_RUNPATH)
                    snprintf(s->runpath, sizeof s->runpath, "%s", str);
                else if (pass == 0 && is_exe && dyn.d_tag == DT_RPATH)
                    snprintf(s->rpath, sizeof s->rpath, "%s", str);
                else if (pass == 1 && dyn.d_tag == DT_NEEDED) {
                    char path[PATH_MAX];
                    if (find_lib(path, s, str) == 0)
                        add_file(s, path);
                }
            }
    }
}

int pg_elfsym_resolve(char file[PATH_MAX], uint64_t *offset, const char *exe, const char *name,
                      const char *ld_library_path)
{
    search *s = calloc(1, sizeof *s);
    if (!s)
        return pg_error_set(PG_ENOMEM, "out of memory");
    s->ld_library_path = ld_library_path;
    snprintf(s->origin, sizeof s->origin, "%s", exe);
    char *slash = strrchr(s->origin, '/');
    if (slash)
        *slash = '\0';
    add_file(s, exe);
    int rc = PG_ENOTFOUND, found = 0;
    for (size_t i = 0; i < s->n && !found; i++) {
        elfh h;
        int r = elf_open(&h, s->files[i]);
        if (r <= 0) {
            elf_close(&h);
            if (i == 0) {
                rc = r < 0 ? r : pg_error_set(PG_EINVAL, "%s is not an ELF executable (a script?): "
                                                       "give the program itself to count calls in", exe);
                break;
            }
            continue;
        }
        GElf_Sym sym;
        for (Elf_Scn *scn = elf_nextscn(h.elf, NULL); scn && !found; scn = elf_nextscn(h.elf, scn)) {
            GElf_Shdr sh;
            if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_DYNSYM || (i == 0 && sh.sh_type == SHT_SYMTAB)))
                found = find_in_symtab(h.elf, scn, &sh, name, i == 0 && sh.sh_type == SHT_SYMTAB, &sym);
        }
        if (found) {
            if (GELF_ST_TYPE(sym.st_info) == STT_GNU_IFUNC)
                rc = pg_error_set(PG_ENOTSUP, "%s in %s is an IFUNC (its entry picks an implementation once): "
                                              "count the implementation's own name instead", name, s->files[i]);
            else if (vaddr_to_offset(h.elf, sym.st_value, offset) < 0)
                rc = pg_error_set(PG_EINVAL, "%s in %s: address 0x%llx is in no loaded segment", name, s->files[i],
                                  (unsigned long long)sym.st_value);
            else {
                snprintf(file, PATH_MAX, "%s", s->files[i]);
                rc = 0;
            }
        } else {
            queue_needed(s, h.elf, i == 0);
        }
        elf_close(&h);
    }
    if (rc == PG_ENOTFOUND && !found)
        rc = pg_error_set(PG_ENOTFOUND, "no function '%s' in %s or the %zu librar%s it loads", name, exe, s->n - 1,
                          s->n == 2 ? "y" : "ies");
    free(s);
    return rc;
}

int pg_elfsym_which(char out[PATH_MAX], const char *cmd, const char *path)
{
    if (strchr(cmd, '/')) {
        snprintf(out, PATH_MAX, "%s", cmd);
        return 0;
    }
    if (!path)
        path = getenv("PATH");
    for (const char *p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
        size_t len = strcspn(p, ":");
        if (snprintf(out, PATH_MAX, "%.*s/%s", (int)len, len ? p : ".", cmd) < PATH_MAX && access(out, X_OK) == 0)
            return 0;
        p += len + (p[len] == ':');
    }
    return pg_error_set(PG_ENOTFOUND, "%s: not found on PATH", cmd);
}
