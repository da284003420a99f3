/* libgit2's TLS certificates read when a remote is used (harness/store/gittls.h):
 * skipped at start-up, loaded once on demand, an unreadable location an error,
 * and mbedtls's own parser at any other time. */
#include "harness/store/gitrepo.h"
#include "harness/store/gittls.h"
#include "tests/check.h"
#include "util/error.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct mbedtls_x509_crt;
int mbedtls_x509_crt_parse_file(struct mbedtls_x509_crt *chain, const char *path);

/* Debian's libgit2 reaches TLS through mbedtls: then start-up defers its bundle. */
static int on_mbedtls(void) { return dlsym(RTLD_DEFAULT, "mbedtls_ssl_conf_ca_chain") != NULL; }

static void test_startup_defers(void)
{
    /* A repository of its own: opening it starts libgit2 (a directory in no
     * repository is answered from the file system, libgit2 left unloaded). */
    char dir[] = "/tmp/pg-gittls-XXXXXX", cmd[128];
    REQUIRE(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "git init -q %s", dir);
    REQUIRE(system(cmd) == 0);
    pg_repo *r = NULL;
    CHECK_EQ_INT(pg_repo_open(&r, dir), 0);
    pg_repo_free(r);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    pg_error_clear();
    int loaded = -1;
    CHECK_EQ_INT(pg_gittls_load(&loaded), 0);
    if (on_mbedtls() && access("/etc/ssl/certs/ca-certificates.crt", R_OK) == 0)
        CHECK_EQ_INT(loaded, 1);                /* the bundle start-up skipped, read now */
    CHECK_EQ_INT(pg_gittls_load(&loaded), 0);
    CHECK_EQ_INT(loaded, 0);                    /* once */
}

static void test_unreadable_location(void)
{
    pg_gittls_defer_begin();
    CHECK_EQ_INT(mbedtls_x509_crt_parse_file(NULL, "/nonexistent/perfgate-ca.pem"), 0);   /* only noted */
    pg_gittls_defer_end();
    int loaded = -1;
    CHECK(pg_gittls_load(&loaded) < 0);
    CHECK_CONTAINS(pg_error_last(), "cannot read the TLS certificates in /nonexistent/perfgate-ca.pem");
    CHECK_EQ_INT(loaded, 0);
    pg_error_clear();
}

static void test_passes_through(void)
{
    /* Outside start-up it is mbedtls's: a missing file fails before the chain is touched. */
    if (on_mbedtls())
        CHECK(mbedtls_x509_crt_parse_file(NULL, "/nonexistent/perfgate-ca.pem") < 0);
}

int main(void)
{
    test_startup_defers();
    test_unreadable_location();
    test_passes_through();
    return pg_check_done();
}
