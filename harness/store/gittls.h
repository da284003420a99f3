/* harness/store/gittls.h — libgit2's TLS certificates, read when a remote is
 * used rather than on every start.
 *
 * Debian's libgit2 is built on mbedtls, whose part of git_libgit2_init parses
 * the whole CA bundle (/etc/ssl/certs/ca-certificates.crt): about 9 ms of the
 * 10 ms libgit2 takes to start, paid by every perfgate command, while only
 * notes push/fetch over https ever need the certificates. perfgate defines
 * mbedtls_x509_crt_parse_file and mbedtls_x509_crt_parse_path: the dynamic
 * linker binds libgit2's calls to an executable's definition first. Between
 * pg_gittls_defer_begin and _end (around git_libgit2_init) they only note the
 * location and leave the chain empty, so a TLS connection made before
 * pg_gittls_load fails verification (fails closed, never trusts); at any
 * other time they are mbedtls's own. A libgit2 built on OpenSSL, or linked to
 * mbedtls statically, never calls them: then nothing is deferred and
 * pg_gittls_load does nothing. */
#ifndef PG_HARNESS_GITTLS_H
#define PG_HARNESS_GITTLS_H

void pg_gittls_defer_begin(void);
void pg_gittls_defer_end(void);

/* Gives libgit2 the certificates its initialisation skipped (once; later
 * calls return 0). Call it after git_libgit2_init, before a remote is
 * connected to. *loaded (may be NULL) is set to whether this call read a
 * deferred location. Negative with the error set when they cannot be read. */
int pg_gittls_load(int *loaded);

#endif
