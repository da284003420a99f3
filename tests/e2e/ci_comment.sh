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
json.dump({"comments": cs, "requests": []}, open(sys.argv[1], "w"))
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
