#!/usr/bin/env bash
# ci/comment.py, the living pull/merge request comment, against a stand-in
# for GitHub's and GitLab's APIs (tests/e2e/lib/mock_forge.py): the first
# run creates one comment, later runs edit that one in place (found by its
# hidden marker, past the first page of comments), someone else's comment
# carrying the marker is left alone, and whatever keeps the comment from
# being written (no token, a refused token, no server) is one warning line
# and exit 0: the gate's status is perfgate's, not the comment's.
. "$(dirname "$0")/lib/common.sh"
CM=${PG_SRC:?}/ci/comment.py
LIB=$PG_SRC/tests/e2e/lib
require python3

# 120 comments by people (two pages of 100), one of which quotes perfgate's
# marker (copied from an old comment): not perfgate's to edit.
python3 - "$T/state.json" <<'PY'
import json, sys
marker = "<!-- perfgate-report: edited in place by each run (ci/comment.py) -->"
cs = [{"id": i, "forge": f, "thread": t, "author": "alice", "body": f"comment {i}"}
      for i, (f, t) in enumerate([("github", "7")] * 120 + [("gitlab", "3")] * 120)]
cs[5]["body"] = marker + "\nquoted by alice"
cs[125]["body"] = marker + "\nquoted by alice"
# Pull requests 66 and 67: an API answering nonsense (a message that tries to
# start workflow commands; JSON nested past Python's recursion limit).
raw = {"66": json.dumps("rate limited\n::error::owned\r::add-mask::x %0A"), "67": "[" * 100000 + "]" * 100000}
json.dump({"comments": cs, "requests": [], "raw": raw}, open(sys.argv[1], "w"))
PY
python3 "$LIB/mock_forge.py" "$T/state.json" "$T/port" &
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$T"' EXIT
for _ in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.1; done
port=$(cat "$T/port")
ours() {  # FORGE THREAD: perfgate's comments there, as "id<TAB>first line of the report"
  python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
for c in s["comments"]:
    if c["forge"] == sys.argv[2] and c["thread"] == sys.argv[3] and c["author"] == "perfgate":
        print("%s\t%s" % (c["id"], c["body"].split("\n")[1]))' "$T/state.json" "$1" "$2"
}
printf '### perfgate: regressed\n\n| crunch | +3.00%% |\n' > "$T/r1.md"
printf '### perfgate: unchanged\n\n| crunch | 0 |\n' > "$T/r2.md"

gh=(env PG_TOKEN=test-token PG_API="http://127.0.0.1:$port" PG_REPO=example/scratch PG_PR=7
    PG_RUN_URL=https://example.invalid/run/1)
expect_exit 0 "github: the first run" "${gh[@]}" python3 "$CM" github "$T/r1.md"
contains "$T/out" "perfgate: created the pull request comment (id "
check "github: one comment of perfgate's" [ "$(ours github 7 | wc -l)" = 1 ]
id1=$(ours github 7 | cut -f1)
expect_exit 0 "github: the second push" "${gh[@]}" python3 "$CM" github "$T/r2.md"
contains "$T/out" "perfgate: updated the pull request comment (id $id1)"
check "github: still one comment, edited in place" [ "$(ours github 7)" = "$id1"$'\t''### perfgate: unchanged' ]
check "github: alice's comment with the marker untouched" python3 -c '
import json, sys; s = json.load(open(sys.argv[1])); sys.exit(s["comments"][5]["body"].split("\n")[1] != "quoted by alice")' "$T/state.json"
check "github: the second page of comments was read" grep -q 'comments?per_page=100&page=2' "$T/state.json"
check "github: the body links the run's artifacts" grep -q 'artifacts of \[this run\](https://example.invalid/run/1)' "$T/state.json"

# What keeps the comment from being written: one warning, exit 0, nothing written.
n=$(ours github 7 | wc -l)
expect_exit 0 "github: no token" env PG_TOKEN= PG_REPO=example/scratch PG_PR=7 python3 "$CM" github "$T/r1.md"
contains "$T/out" "::warning title=perfgate::the report was not commented on the request: no token"
expect_exit 0 "github: a refused token" env PG_TOKEN=other PG_API="http://127.0.0.1:$port" PG_REPO=example/scratch PG_PR=7 \
  python3 "$CM" github "$T/r1.md"
contains "$T/out" "::warning title=perfgate::the report was not commented on the request: HTTP 401"
expect_exit 0 "github: no server" env PG_TOKEN=test-token PG_API="http://127.0.0.1:1" PG_REPO=example/scratch PG_PR=7 \
  python3 "$CM" github "$T/r1.md"
contains "$T/out" "::warning title=perfgate::the report was not commented on the request:"
check "github: none of those wrote a comment" [ "$(ours github 7 | wc -l)" = "$n" ]
# Hostile data: whatever the API answers or PG_REPO holds, one warning line,
# and no line of stdout or stderr that starts a workflow command of its own.
one_warning() {  # DESCRIPTION: exactly perfgate's one warning, nothing else a runner would obey
  check "$1: one line, perfgate's warning (got: $(head -c 300 "$T/out"))" \
    [ "$(wc -l < "$T/out")" = 1 -a "$(grep -c '^::warning title=perfgate::' "$T/out")" = 1 ]
  check "$1: no other workflow command, on stdout or stderr" [ "$(cat "$T/out" "$T/err" | grep -c '^::')" = 1 ]
  lacks "$T/err" "Traceback" "$1: no traceback"
}
for pr in 66 67; do
  expect_exit 0 "github: pull request $pr, the API answers nonsense" env PG_TOKEN=test-token PG_API="http://127.0.0.1:$port" \
    PG_REPO=example/scratch PG_PR=$pr python3 "$CM" github "$T/r1.md"
  one_warning "github: pull request $pr"
done
contains "$T/out" "maximum recursion depth exceeded"
expect_exit 0 "github: an API message with newlines" env PG_TOKEN=test-token PG_API="http://127.0.0.1:$port" \
  PG_REPO=example/scratch PG_PR=66 python3 "$CM" github "$T/r1.md"
contains "$T/out" "listing comments: rate limited%0A::error::owned%0D::add-mask::x %250A"
repo=$'example/scratch\n::error::owned by PG_REPO'
expect_exit 0 "github: a PG_REPO with a newline, not a pull request" env PG_TOKEN=test-token PG_REPO="$repo" PG_PR=x \
  python3 "$CM" github "$T/r1.md"
one_warning "github: a PG_REPO with a newline"
contains "$T/out" "(repository 'example/scratch%0A::error::owned by PG_REPO', number 'x')"
expect_exit 0 "github: a PG_REPO with a newline, sent" env PG_TOKEN=test-token PG_API="http://127.0.0.1:$port" \
  PG_REPO="$repo" PG_PR=7 python3 "$CM" github "$T/r1.md"
one_warning "github: a PG_REPO with a newline, sent"
check "github: none of those wrote a comment" [ "$(ours github 7 | wc -l)" = "$n" ]
expect_exit 0 "gitlab: the API answers nonsense" env PERFGATE_GITLAB_TOKEN=test-token CI_API_V4_URL="http://127.0.0.1:$port/api/v4" \
  CI_PROJECT_ID=42 CI_MERGE_REQUEST_IID=66 python3 "$CM" gitlab "$T/r1.md"
check "gitlab: one line, its newlines escaped" [ "$(wc -l < "$T/out")" = 1 ]
contains "$T/out" "perfgate: warning: the report was not commented on the request: unexpected answer listing comments: rate limited%0A::error::owned"
expect_exit 2 "a report that does not exist" python3 "$CM" github "$T/none"$'\n::error::x.md'
check "its name's newline escaped" [ "$(wc -l < "$T/err")" = 1 ]
expect_exit 2 "a report that does not exist" python3 "$CM" github "$T/none.md"
contains "$T/err" "comment.py: cannot read the report $T/none.md"
expect_exit 2 "usage" python3 "$CM" bitbucket "$T/r1.md"

gl=(env PERFGATE_GITLAB_TOKEN=test-token CI_API_V4_URL="http://127.0.0.1:$port/api/v4" CI_PROJECT_ID=42
    CI_MERGE_REQUEST_IID=3 CI_PIPELINE_URL=https://example.invalid/pipelines/9)
expect_exit 0 "gitlab: the first run" "${gl[@]}" python3 "$CM" gitlab "$T/r1.md"
contains "$T/out" "perfgate: created the merge request comment (id "
gid=$(ours gitlab 3 | cut -f1)
expect_exit 0 "gitlab: the second push" "${gl[@]}" python3 "$CM" gitlab "$T/r2.md"
contains "$T/out" "perfgate: updated the merge request comment (id $gid)"
check "gitlab: one note, edited in place" [ "$(ours gitlab 3)" = "$gid"$'\t''### perfgate: unchanged' ]
expect_exit 0 "gitlab: no token" env CI_API_V4_URL="http://127.0.0.1:$port/api/v4" python3 "$CM" gitlab "$T/r1.md"
contains "$T/out" "perfgate: warning: the report was not commented on the request: no PERFGATE_GITLAB_TOKEN"
finish
