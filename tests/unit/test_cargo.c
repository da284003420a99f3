/* tests/unit/test_cargo.c — a manifest's "cargo" key, and the package and
 * executable of a cargo target read from cargo's own machine-readable output
 * (harness/measure/cargo.h), on outputs shaped as cargo 1.95 prints them. */
#include "harness/bench/bench.h"
#include "harness/measure/cargo.h"
#include "tests/check.h"
#include "util/error.h"

static int parse(pg_benchset *s, const char *text)
{
    pg_benchset_init(s);
    return pg_manifest_parse(s, text, strlen(text), "m.json", "/w/bench");
}

static void manifest_key(void)
{
    pg_benchset s;
    REQUIRE(parse(&s, "{\"benchmarks\": [{\"name\": \"c\", \"args\": [\"3\", \"x\"], \"cargo\": {\"bench\": \"count\", "
                      "\"package\": \"app\", \"features\": [\"x\", \"dep/y\"], \"default_features\": false, "
                      "\"manifest_path\": \"../app/Cargo.toml\"}},"
                      "{\"name\": \"e\", \"cargo\": {\"example\": \"ex\", \"profile\": \"prof\"}}]}") == 0);
    CHECK(s.has_cargo);
    const pg_cargo_target *t = s.v[0].cargo;
    REQUIRE(t);
    CHECK_EQ_INT(t->kind, PG_CARGO_BENCH);
    CHECK_STR(t->target, "count");
    CHECK_STR(t->package, "app");
    CHECK_STR(t->features, "x,dep/y");
    CHECK(t->no_default_features);
    CHECK_STR(t->profile, "bench");     /* cargo bench's */
    CHECK_STR(t->dir, "/w/bench");
    CHECK_STR(t->manifest_path, "/w/bench/../app/Cargo.toml");
    CHECK_STR(s.v[0].argv[0], "(cargo bench count, not built yet)");
    CHECK_STR(s.v[0].argv[1], "3");
    CHECK_STR(s.v[0].argv[2], "x");
    CHECK(s.v[0].argv[3] == NULL);
    CHECK_STR(s.v[0].cwd, "/w/bench");
    t = s.v[1].cargo;
    CHECK_EQ_INT(t->kind, PG_CARGO_EXAMPLE);
    CHECK(t->package == NULL && t->features == NULL && t->manifest_path == NULL && !t->no_default_features);
    CHECK_STR(t->profile, "prof");
    CHECK(s.v[1].argv[1] == NULL);
    pg_benchset_free(&s);

    REQUIRE(parse(&s, "{\"benchmarks\": [{\"name\": \"b\", \"cargo\": {\"bin\": \"tool\"}}]}") == 0);
    CHECK_STR(s.v[0].cargo->profile, "release");
    pg_benchset_free(&s);

    static const struct { const char *bench, *msg; } bad[] = {
        {"\"cargo\": {\"bench\": \"a\"}, \"command\": [\"./x\"]", "m.json: benchmarks[0]: \"command\" and \"cargo\" both given"},
        {"\"command\": [\"./x\"], \"args\": [\"1\"]", "m.json: benchmarks[0].args: only with \"cargo\""},
        {"\"cargo\": {}", "m.json: benchmarks[0].cargo: which target: \"bench\", \"bin\" or \"example\" and its name"},
        {"\"cargo\": {\"bench\": \"a\", \"bin\": \"a\"}", "m.json: benchmarks[0].cargo: one target"},
        {"\"cargo\": {\"bench\": \"--all\"}", "m.json: benchmarks[0].cargo.bench: expected a target's name"},
        {"\"cargo\": {\"bench\": \"a\", \"package\": \"a b\"}", "m.json: benchmarks[0].cargo.package: expected a package's name"},
        {"\"cargo\": {\"bench\": \"a\", \"features\": \"x\"}", "m.json: benchmarks[0].cargo.features: expected an array"},
        {"\"cargo\": {\"bench\": \"a\", \"features\": [\"x,y\"]}", "m.json: benchmarks[0].cargo.features[0]: expected a feature's name"},
        {"\"cargo\": {\"bench\": \"a\", \"profil\": \"x\"}", "m.json: benchmarks[0].cargo: unknown key \"profil\" (did you mean \"profile\"?)"},
        {"\"cargo\": {\"bench\": \"a\"}, \"args\": \"1\"", "m.json: benchmarks[0].args: expected an array of strings"},
        {"\"cargo\": \"a\"", "m.json: benchmarks[0].cargo: expected an object like {\"bench\": \"NAME\"}"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[512];
        snprintf(text, sizeof text, "{\"benchmarks\": [{\"name\": \"n\", %s}]}", bad[i].bench);
        CHECK_EQ_INT(parse(&s, text), PG_EINVAL);
        CHECK_CONTAINS(pg_error_last(), bad[i].msg);
        pg_benchset_free(&s);
    }
}

/* `cargo metadata --no-deps` of a workspace with two members. */
static const char metadata[] =
    "{\"packages\": ["
    "{\"name\": \"app\", \"version\": \"0.1.0\", \"id\": \"path+file:///w/app#0.1.0\", \"targets\": ["
    "{\"kind\": [\"lib\"], \"name\": \"app\"}, {\"kind\": [\"bench\"], \"name\": \"count\"},"
    "{\"kind\": [\"bench\"], \"name\": \"sort\"}, {\"kind\": [\"bin\"], \"name\": \"count\"}]},"
    "{\"name\": \"tools\", \"version\": \"0.2.0\", \"id\": \"path+file:///w/tools#0.2.0\", \"targets\": ["
    "{\"kind\": [\"bin\"], \"name\": \"count\"}, {\"kind\": [\"example\"], \"name\": \"demo\"}]}],"
    "\"workspace_members\": [], \"target_directory\": \"/w/target\", \"workspace_root\": \"/w\", \"version\": 1}";

static int find(pg_cargo_pkg *p, pg_cargo_kind kind, const char *target, const char *package)
{
    pg_cargo_target t = {.kind = kind, .target = (char *)target, .package = (char *)package};
    return pg_cargo_find_package(p, metadata, sizeof metadata - 1, &t, "m.json: benchmark \"b\"");
}

static void packages(void)
{
    pg_cargo_pkg p;
    REQUIRE(find(&p, PG_CARGO_BENCH, "sort", NULL) == 0);     /* the one package with it */
    CHECK_STR(p.name, "app");
    CHECK_STR(p.id, "path+file:///w/app#0.1.0");
    CHECK_STR(p.target_directory, "/w/target");
    CHECK_STR(p.workspace_root, "/w");
    pg_cargo_pkg_free(&p);
    REQUIRE(find(&p, PG_CARGO_EXAMPLE, "demo", "tools") == 0);
    CHECK_STR(p.id, "path+file:///w/tools#0.2.0");
    pg_cargo_pkg_free(&p);

    CHECK_EQ_INT(find(&p, PG_CARGO_BENCH, "cont", "app"), PG_EINVAL);
    CHECK_STR(pg_error_last(), "m.json: benchmark \"b\": no bench target \"cont\" in package \"app\" (did you mean "
                               "\"count\"? its bench targets: count, sort)");
    CHECK_EQ_INT(find(&p, PG_CARGO_EXAMPLE, "demo", "app"), PG_EINVAL);
    CHECK_STR(pg_error_last(), "m.json: benchmark \"b\": no example target \"demo\": package \"app\" has no example targets");
    CHECK_EQ_INT(find(&p, PG_CARGO_BIN, "tool", NULL), PG_EINVAL);
    CHECK_STR(pg_error_last(), "m.json: benchmark \"b\": no bin target \"tool\" in the workspace's packages (its bin "
                               "targets: count, count)");
    CHECK_EQ_INT(find(&p, PG_CARGO_BIN, "count", NULL), PG_EINVAL);
    CHECK_STR(pg_error_last(), "m.json: benchmark \"b\": packages app, tools all have a bin target \"count\": say which "
                               "with \"package\"");
    CHECK_EQ_INT(find(&p, PG_CARGO_BENCH, "count", "ap"), PG_EINVAL);
    CHECK_STR(pg_error_last(), "m.json: benchmark \"b\": no package \"ap\" in the cargo workspace /w (did you mean "
                               "\"app\"? its packages: app, tools)");
    pg_cargo_target t = {.kind = PG_CARGO_BENCH, .target = "count"};
    CHECK_EQ_INT(pg_cargo_find_package(&p, "{\"packages\": 3}", 15, &t, "w"), PG_EINVAL);
    CHECK_EQ_INT(pg_cargo_find_package(&p, "not json", 8, &t, "w"), PG_EINVAL);
}

/* cargo build's messages: the library's test harness (what `cargo bench
 * --no-run` also lists), a bin and a bench of one name, a dependency's
 * bench of that name, a line that is no JSON, the build's end. */
static const char messages[] =
    "{\"reason\":\"compiler-artifact\",\"package_id\":\"path+file:///w/app#0.1.0\",\"target\":{\"kind\":[\"lib\"],"
    "\"name\":\"app\"},\"profile\":{\"test\":true},\"executable\":\"/w/target/release/deps/app-1111\",\"fresh\":false}\n"
    "{\"reason\":\"compiler-artifact\",\"package_id\":\"path+file:///w/dep#0.1.0\",\"target\":{\"kind\":[\"bench\"],"
    "\"name\":\"count\"},\"executable\":\"/w/target/release/deps/count-2222\"}\n"
    "not json at all\n"
    "{\"reason\":\"compiler-message\",\"package_id\":\"path+file:///w/app#0.1.0\",\"target\":{\"kind\":[\"bench\"],"
    "\"name\":\"count\"},\"executable\":\"/w/x\"}\n"
    "{\"reason\":\"compiler-artifact\",\"package_id\":\"path+file:///w/app#0.1.0\",\"target\":{\"kind\":[\"bin\"],"
    "\"name\":\"count\"},\"executable\":\"/w/target/release/count\"}\n"
    "{\"reason\":\"compiler-artifact\",\"package_id\":\"path+file:///w/app#0.1.0\",\"target\":{\"kind\":[\"bench\"],"
    "\"name\":\"count\"},\"executable\":\"/w/target/release/deps/count-3333\"}\n"
    "{\"reason\":\"compiler-artifact\",\"package_id\":\"path+file:///w/app#0.1.0\",\"target\":{\"kind\":[\"example\"],"
    "\"name\":\"lib\",\"crate_types\":[\"rlib\"]},\"executable\":null}\n"
    "{\"reason\":\"build-finished\",\"success\":true}";

static void executables(void)
{
    const char *app = "path+file:///w/app#0.1.0";
    char *exe = NULL;
    pg_cargo_target t = {.kind = PG_CARGO_BENCH, .target = "count"};
    REQUIRE(pg_cargo_find_executable(&exe, messages, sizeof messages - 1, app, &t) == 0);
    CHECK_STR(exe, "/w/target/release/deps/count-3333");
    free(exe);
    t.kind = PG_CARGO_BIN;
    REQUIRE(pg_cargo_find_executable(&exe, messages, sizeof messages - 1, app, &t) == 0);
    CHECK_STR(exe, "/w/target/release/count");
    free(exe);
    t.kind = PG_CARGO_EXAMPLE;  /* a library example: no executable */
    t.target = "lib";
    CHECK_EQ_INT(pg_cargo_find_executable(&exe, messages, sizeof messages - 1, app, &t), PG_ENOTFOUND);
    CHECK_STR(pg_error_last(), "cargo built no executable for example target \"lib\" of path+file:///w/app#0.1.0");
    t.kind = PG_CARGO_BENCH;
    t.target = "app";           /* the library's harness is no bench target */
    CHECK_EQ_INT(pg_cargo_find_executable(&exe, messages, sizeof messages - 1, app, &t), PG_ENOTFOUND);
    CHECK_EQ_INT(pg_cargo_find_executable(&exe, "", 0, app, &t), PG_ENOTFOUND);
}

int main(void)
{
    manifest_key();
    packages();
    executables();
    return pg_check_done();
}
