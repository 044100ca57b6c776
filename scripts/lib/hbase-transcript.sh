# run_transcript BOOTSTRAP: runs the comparison transcript (strata.hbase.Transcript) against
# the HBase RPC servers named by BOOTSTRAP (host:port[,host:port]) and diffs what they answer,
# line by line, against what HBase 2.6 answered (scripts/hbase-client/expected/transcript.txt,
# recorded by scripts/hbase-client-transcript.sh against an HBase peer). Fails (status 1) on
# any difference, printing the diff and how many cases differ. Sourced by
# scripts/hbase-client-test.sh ($CACHE, $JFLAGS set; run from the project root).
run_transcript() {
  local GOT EXPECTED cases differ rc=0
  GOT=$(mktemp)
  if timeout "${HBASE_CLIENT_TEST_TIMEOUT:-300}" java $JFLAGS -cp "$CACHE/classes:$CACHE/lib/*" \
    strata.hbase.Transcript "$1" >"$GOT" 2>"$GOT.log"; then
    EXPECTED=scripts/hbase-client/expected/transcript.txt
    cases=$(grep -c '^== ' "$EXPECTED")
    if diff -u "$EXPECTED" "$GOT"; then
      echo "transcript: all $cases cases answer as HBase 2.6 does"
    else
      differ=$(python3 - "$EXPECTED" "$GOT" <<'PY'
import sys
def cases(path):
    out, name = {}, None
    for line in open(path):
        if line.startswith("== "):
            name = line
            out[name] = []
        elif name is not None:
            out[name].append(line)
    return out
want, got = cases(sys.argv[1]), cases(sys.argv[2])
print(sum(1 for k, v in want.items() if got.get(k) != v))
PY
)
      echo "transcript: $differ of $cases cases differ from HBase 2.6's (diff above)"
      rc=1
    fi
  else
    echo "transcript: the program failed"; tail -20 "$GOT.log"; rc=1
  fi
  rm -f "$GOT" "$GOT.log"
  return "$rc"
}
