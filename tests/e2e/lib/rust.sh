# tests/e2e/lib/rust.sh — sourced (after common.sh) by the tests of Rust
# programs. Finds cargo on PATH, else in ~/.cargo/bin (where rustup puts it);
# without it the test is skipped (exit 77). build_rwork builds the test
# program tests/rust/rwork offline, into the build directory.
if ! command -v cargo >/dev/null; then
  if [ -x "${HOME:-/nonexistent}/.cargo/bin/cargo" ]; then
    PATH=$HOME/.cargo/bin:$PATH
  else
    echo "cargo not found on PATH or in ~/.cargo/bin: skipped"
    exit 77
  fi
fi
RWORK_SRC=${PG_SRC:?}/tests/rust/rwork

# build_rwork MANGLING: builds rwork with rustc's legacy (its default) or v0
# symbol mangling into $PG_BUILD/tests/rust/MANGLING, and prints the
# program's path. Tests running at once share the target directory: cargo
# takes turns on it.
build_rwork() {
  local flags=
  case $1 in
    legacy) ;;
    v0) flags="-C symbol-mangling-version=v0" ;;
    *) echo "build_rwork: legacy or v0, not '$1'" >&2; return 1 ;;
  esac
  local dir=${PG_BUILD:?}/tests/rust/$1
  RUSTFLAGS=$flags cargo build --release --offline --locked --quiet \
    --manifest-path "$RWORK_SRC/Cargo.toml" --target-dir "$dir" >&2 || return 1
  echo "$dir/release/rwork"
}
