# What the command-line test scripts share: counting checks and running a command against an
# expected exit code and output. Source it after setting FF; it sets passed, failed and TMP.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
passed=0 failed=0

ok() { passed=$((passed + 1)); echo "ok   $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1"; shift; printf '    %s\n' "$@"; }

# run NAME WANT_EXIT WANT_REGEX CMD... : the command's exit code and its output (stdout+stderr)
run() {
    local name=$1 want_rc=$2 want=$3; shift 3
    local out rc
    out=$("$@" 2>&1); rc=$?
    if [ "$rc" != "$want_rc" ]; then fail "$name" "exit $rc, want $want_rc" "$(echo "$out" | tail -5)"; return; fi
    if ! grep -Eq -- "$want" <<<"$out"; then fail "$name" "output lacks /$want/" "$(echo "$out" | tail -5)"; return; fi
    ok "$name"
}
