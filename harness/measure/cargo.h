/* harness/measure/cargo.h — cargo targets of a manifest, built and found.
 *
 * A manifest entry may name a bench, bin or example target of a Cargo
 * package instead of a command (docs/manifest.md, "Cargo targets"). After
 * the manifest's "build", in every tree measured (the work tree for `run`,
 * each revision's checkout for `compare --run-missing` and `bisect`):
 *
 *   1. `cargo metadata --offline --no-deps --format-version 1` lists the
 *      workspace's packages and their targets: a target or package that is
 *      not there is refused in one line naming it and listing what there is;
 *   2. `cargo build --offline --message-format=json-render-diagnostics`
 *      builds the targets, one cargo run per package, profile and features;
 *   3. each entry's executable is the `executable` of the `compiler-artifact`
 *      message whose package id, target name and target kind are the entry's:
 *      cargo's own answer, never a guess at its hashed file names (the same
 *      listing holds, e.g., the library's test-harness executable).
 *
 * Both cargo runs are contained and timed as the build is (build.h). In a
 * checkout, a target directory that cargo would put outside it
 * (CARGO_TARGET_DIR, .cargo/config.toml) is replaced by the workspace's own
 * `target/`: two revisions never build into one directory.
 */
#ifndef PG_HARNESS_CARGO_H
#define PG_HARNESS_CARGO_H

#include "harness/bench/bench.h"
#include "harness/measure/build.h"

#include <stddef.h>

/* Builds the cargo targets of `set` in the tree b->dir (b->checkout: a
 * checkout) and sets each such entry's argv[0] to its executable. Logs go
 * beside b->log ("cargo-metadata.log", "cargo-N.log"). */
int pg_cargo_build(pg_benchset *set, const pg_build *b);

/* What `cargo metadata` says of one entry's package. */
typedef struct pg_cargo_pkg {
    char *name, *id;            /* the package's name and cargo's id of it */
    char *workspace_root, *target_directory;
} pg_cargo_pkg;

void pg_cargo_pkg_free(pg_cargo_pkg *p);

/* The package of target `t` in the output of `cargo metadata --no-deps`
 * (json[0..len)): t->package, or the one package having t's target. Errors
 * (PG_EINVAL) begin with `who` ("bench/perfgate.json: benchmark \"x\"") and
 * name what is missing: an unknown package with the workspace's packages, an
 * unknown target with the package's targets of that kind (and the closest). */
int pg_cargo_find_package(pg_cargo_pkg *out, const char *json, size_t len, const pg_cargo_target *t, const char *who);

/* The executable of package `id`'s target `t` in cargo build's JSON
 * messages (text[0..len), one per line), into *exe (malloc'd); PG_ENOTFOUND
 * when no compiler-artifact message gives one. */
int pg_cargo_find_executable(char **exe, const char *text, size_t len, const char *id, const pg_cargo_target *t);

#endif
