#!/usr/bin/env bash
# The script of the trailgate GitHub Action (action.yml): install trailgate, run `trailgate
# check` with the reports asked for, and say where they are. Every input comes from an
# environment variable, so the script runs the same on a laptop as on a runner, and
# python/tests/test_action.py runs it on a bundled fixture.
#
#   TRAILGATE_SUITE        the suite file (default trailgate.yaml)
#   TRAILGATE_ANNOTATIONS  true: `--format github` on the log (annotations, then the text
#                          report); false: the text report
#   TRAILGATE_SUMMARY      true: the Markdown summary is appended to GITHUB_STEP_SUMMARY
#   TRAILGATE_JUNIT        a file for the JUnit report (default trailgate-junit.xml), or empty
#   TRAILGATE_MARKDOWN     a file for the Markdown report, or empty
#   TRAILGATE_JSON         a file for the JSON report (default trailgate-report.json), or empty
#   TRAILGATE_HTML         a file for the HTML report, or empty (the default)
#   TRAILGATE_BASELINE     a baseline JSON report for gates on the baseline (`--baseline`),
#                          or empty
#   TRAILGATE_ARGS         more arguments for `trailgate check`, split at spaces
#   TRAILGATE_INSTALL      cargo (`cargo install --locked` from the action's own source, the
#                          default), pip (TRAILGATE_PACKAGE) or none (on PATH already)
#   TRAILGATE_PACKAGE      what `pip` installs: a pinned version (`trailgate==0.1.0`) or a
#                          wheel file; never a bare name (docs/ci.md#the-trailgate-action)
#
# It writes `exit-code` and `reports` (the report files, one a line) to GITHUB_OUTPUT when
# that is set, and exits with trailgate's exit code: 0 passed, 1 a gate failed, 2 invalid.
set -euo pipefail

suite="${TRAILGATE_SUITE:-trailgate.yaml}"
annotations="${TRAILGATE_ANNOTATIONS:-true}"
summary="${TRAILGATE_SUMMARY:-true}"
junit="${TRAILGATE_JUNIT-trailgate-junit.xml}"
markdown="${TRAILGATE_MARKDOWN:-}"
json="${TRAILGATE_JSON-trailgate-report.json}"
html="${TRAILGATE_HTML:-}"
baseline="${TRAILGATE_BASELINE:-}"
install="${TRAILGATE_INSTALL:-cargo}"
package="${TRAILGATE_PACKAGE:-}"
scratch="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

fail() {
    echo "trailgate action: $*" >&2
    exit 2
}

is_bool() {
    [ "$1" = true ] || [ "$1" = false ] || fail "\`$2\` is \`$1\`; write true or false"
}
is_bool "$annotations" annotations
is_bool "$summary" summary

# A folder whose `bin/` goes on PATH for this step and, on a runner, for the later ones.
use_bin() {
    export PATH="$1:$PATH"
    if [ -n "${GITHUB_PATH:-}" ]; then
        echo "$1" >>"$GITHUB_PATH"
    fi
}

case "$install" in
pip)
    # A bare name installs whatever the registry serves under it today, which need not be
    # this project's code: only a pinned version or a wheel file is installed.
    case "$package" in
    "") fail "\`install: pip\` needs \`package\`: a pinned version (\`trailgate==0.1.0\`) or a wheel file" ;;
    *.whl) [ -f "$package" ] || fail "\`package\` is \`$package\`, and no such wheel file exists" ;;
    *==*) ;;
    *) fail "\`package\` is \`$package\`; pin a version (\`$package==0.1.0\`) or name a wheel file" ;;
    esac
    # A virtual environment of its own: the runner's Python refuses `pip install` into
    # the system (PEP 668), and the job's own environment stays as it was.
    venv="$scratch/trailgate-venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$package"
    use_bin "$venv/bin"
    ;;
cargo)
    # The action's checkout is the repository at the action's ref: build that.
    cargo install --locked --root "$scratch/trailgate-cargo" --path "$here/../crates/trailgate-cli"
    use_bin "$scratch/trailgate-cargo/bin"
    ;;
none) ;;
*) fail "\`install\` is \`$install\`; write pip, cargo or none" ;;
esac
command -v trailgate >/dev/null || fail "no \`trailgate\` command on PATH after \`install: $install\`"

args=(check "$suite")
reports=()
add_report() {
    args+=(--format "$1" --output "$2")
    reports+=("$(cd "$(dirname "$2")" && pwd)/$(basename "$2")")
}
[ -z "$junit" ] || add_report junit "$junit"
[ -z "$markdown" ] || add_report markdown "$markdown"
[ -z "$json" ] || add_report json "$json"
[ -z "$html" ] || add_report html "$html"

if [ -n "$baseline" ]; then
    # A trailgate older than `--baseline` refuses the option (exit 2) rather than ignore it.
    args+=(--baseline "$baseline")
fi

step_summary="${GITHUB_STEP_SUMMARY:-}"
summary_file=""
if [ "$annotations" = true ]; then
    args+=(--format github)
else
    args+=(--format text)
fi
if [ "$summary" = true ] && [ -n "$step_summary" ] && [ "$annotations" = false ]; then
    # Without `--format github`, the summary is the Markdown report, appended afterwards.
    summary_file="$(mktemp "$scratch/trailgate-summary.XXXXXX")"
    args+=(--format markdown --output "$summary_file")
fi

if [ -n "${TRAILGATE_ARGS:-}" ]; then
    read -r -a extra <<<"$TRAILGATE_ARGS"
    args+=(${extra[@]+"${extra[@]}"})
fi

code=0
if [ "$summary" = true ]; then
    trailgate "${args[@]}" || code=$?
else
    # `--format github` appends the summary wherever GITHUB_STEP_SUMMARY points.
    env -u GITHUB_STEP_SUMMARY trailgate "${args[@]}" || code=$?
fi

if [ -n "$summary_file" ]; then
    if [ -s "$summary_file" ]; then
        cat "$summary_file" >>"$step_summary"
    fi
    rm -f "$summary_file"
fi

if [ -n "${GITHUB_OUTPUT:-}" ]; then
    {
        echo "exit-code=$code"
        echo "reports<<TRAILGATE_REPORTS"
        # The `+` form: an empty array is an unbound variable to the bash 3 of macOS runners.
        for report in ${reports[@]+"${reports[@]}"}; do
            [ ! -e "$report" ] || echo "$report"
        done
        echo "TRAILGATE_REPORTS"
    } >>"$GITHUB_OUTPUT"
fi
exit "$code"
